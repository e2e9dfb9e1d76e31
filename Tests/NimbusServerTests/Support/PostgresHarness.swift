import Foundation
import NIOConcurrencyHelpers

/// A PostgreSQL 15 cluster started by the tests: `initdb` as the `postgres` user in a
/// temporary folder, then `pg_ctl start` on a free port with its socket in that folder.
/// One cluster serves the whole test process (each test gets its own database) and is
/// stopped and deleted when the process exits; a test's private cluster is deleted by the test
/// (``Cluster/destroy()``).
enum PostgresHarness {
    static let binDirectory = ProcessInfo.processInfo.environment["NIMBUS_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"

    /// Whether PostgreSQL cases run: when the binaries are present, and always on CI
    /// (`CI=true`), where missing binaries must fail the run instead of skipping silently.
    static var enabled: Bool { binariesPresent || required }

    /// Whether this run must test PostgreSQL (`CI=true`).
    static var required: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    static var binariesPresent: Bool {
        FileManager.default.isExecutableFile(atPath: binDirectory + "/initdb")
            && FileManager.default.isExecutableFile(atPath: binDirectory + "/pg_ctl")
    }

    private static let printed = NIOLockedValueBox(false)
    static func printSkipReasonOnce() {
        let first = printed.withLockedValue { printed in
            defer { printed = true }
            return !printed
        }
        if first {
            print("⚠️  PostgreSQL tests skipped: no initdb/pg_ctl in \(binDirectory) (apt-get install -y postgresql, or set NIMBUS_PG_BIN).")
        }
    }

    /// A running cluster.
    struct Cluster: Sendable {
        var directory: String
        var port: Int

        var dataDirectory: String { directory + "/data" }

        /// A URL for a database of this cluster.
        func url(database: String) -> String {
            "postgres://postgres@127.0.0.1:\(port)/\(database)"
        }

        /// Creates an empty database and returns its URL.
        func createDatabase() throws -> String {
            let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
            try PostgresHarness.run(
                PostgresHarness.binDirectory + "/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", String(name)])
            return url(database: String(name))
        }

        /// Stops the cluster immediately (`pg_ctl stop -m immediate`), as a crash would.
        func stop() throws {
            try PostgresHarness.asPostgres(PostgresHarness.binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        }

        /// Stops the cluster if it runs and deletes its folder. Errors are ignored: this is cleanup.
        func destroy() {
            try? PostgresHarness.asPostgres(PostgresHarness.binDirectory + "/pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Starts the cluster again after ``stop()``.
        func start() throws {
            try PostgresHarness.asPostgres(
                PostgresHarness.binDirectory + "/pg_ctl",
                ["-D", dataDirectory, "-o", "-p \(port) -k \(directory) -c fsync=off -c max_connections=200", "-l", directory + "/log", "-w", "start"])
        }
    }

    private static let shared = NIOLockedValueBox<Result<Cluster, any Error>?>(nil)

    /// The process's shared cluster, started on first use.
    static func cluster() throws -> Cluster {
        try shared.withLockedValue { state in
            if let state { return try state.get() }
            let result = Result { try startCluster() }
            state = result
            if case .success(let cluster) = result {
                clusterToStop = cluster.directory
                atexit(stopSharedClusterAtExit)
            }
            return try result.get()
        }
    }

    /// A separate cluster that a test may stop and start (fault tests); the test calls
    /// ``Cluster/destroy()`` when done.
    static func privateCluster() throws -> Cluster {
        try startCluster()
    }

    nonisolated(unsafe) static var clusterToStop: String?

    private static func startCluster() throws -> Cluster {
        guard binariesPresent else {
            throw HarnessError("PostgreSQL is required on CI but there is no initdb/pg_ctl in \(binDirectory) (apt-get install -y postgresql, or set NIMBUS_PG_BIN).")
        }
        let directory = "/tmp/nimbus-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try run("/bin/chown", ["postgres:postgres", directory])
        try asPostgres(binDirectory + "/initdb", ["-D", directory + "/data", "-U", "postgres", "-A", "trust", "--no-sync"])
        let cluster = Cluster(directory: directory, port: freePort())
        try cluster.start()
        return cluster
    }

    static func asPostgres(_ tool: String, _ arguments: [String]) throws {
        if getuid() == 0 {
            try run("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments)
        } else {
            try run(tool, arguments)
        }
    }

    /// Runs a tool with `posix_spawn` and `waitpid`, its output in a file. (Foundation's
    /// `Process` waits for the daemon `pg_ctl start` leaves behind, so it is not used.)
    static func run(_ tool: String, _ arguments: [String]) throws {
        let outputPath = NSTemporaryDirectory() + "nimbus-harness-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
        guard spawned == 0 else { throw HarnessError("could not start \(tool): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitCode = (status >> 8) & 0xff
        guard status & 0x7f == 0, exitCode == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw HarnessError("\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }

    /// A TCP port nothing listens on right now.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Stops the shared cluster and deletes its folder when the test process exits.
private func stopSharedClusterAtExit() {
    if let directory = PostgresHarness.clusterToStop {
        try? PostgresHarness.asPostgres(PostgresHarness.binDirectory + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }
}
