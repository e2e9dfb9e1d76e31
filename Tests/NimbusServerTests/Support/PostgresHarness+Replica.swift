import Foundation

extension PostgresHarness {
    /// A private primary and a streaming hot-standby replica of it, made with
    /// `pg_basebackup -R` (the standby connects to the primary and replays its WAL). The
    /// test calls ``Cluster/destroy()`` on both when done.
    static func primaryWithReplica() throws -> (primary: Cluster, replica: Cluster) {
        let primary = try privateCluster()
        do {
            let replica = try startReplica(of: primary)
            return (primary, replica)
        } catch {
            primary.destroy()
            throw error
        }
    }

    /// Copies a running cluster with `pg_basebackup -R -X stream` and starts the copy as its standby.
    static func startReplica(of primary: Cluster) throws -> Cluster {
        let directory = "/tmp/nimbus-pg-replica-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try run("/bin/chown", ["postgres:postgres", directory])
        let replica = Cluster(directory: directory, port: freePort())
        do {
            try asPostgres(binDirectory + "/pg_basebackup", [
                "-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", replica.dataDirectory, "-R", "-X", "stream", "-c", "fast",
            ])
            try replica.start()
        } catch {
            replica.destroy()
            throw error
        }
        return replica
    }

    /// The name of the database a cluster URL names.
    static func databaseName(_ url: String) -> String {
        String(url.split(separator: "/").last ?? "")
    }
}
