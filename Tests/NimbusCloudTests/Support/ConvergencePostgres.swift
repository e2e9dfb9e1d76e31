import Foundation

/// A PostgreSQL 15 cluster for the convergence test on PostgreSQL, started as
/// `NimbusServerTests`' `PostgresHarness` does (`initdb` as `postgres` in `/tmp`, `pg_ctl start`
/// on a free port; binaries from `NIMBUS_PG_BIN` or `/usr/lib/postgresql/15/bin`), and deleted by
/// ``destroy()``.
struct ConvergencePostgres {
    static let binDirectory = ProcessInfo.processInfo.environment["NIMBUS_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
    static var binariesPresent: Bool { FileManager.default.isExecutableFile(atPath: binDirectory + "/initdb") }

    let directory: String
    let port: Int
    var url: String { "postgres://postgres@127.0.0.1:\(port)/nimbus" }

    /// Starts a new cluster with an empty database `nimbus`.
    init() throws {
        directory = "/tmp/nimbus-pg-\(UUID().uuidString.prefix(8))"
        port = SyncServer.freePort()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.run("/bin/chown", ["postgres:postgres", directory])
        try Self.asPostgres(Self.binDirectory + "/initdb", ["-D", directory + "/data", "-U", "postgres", "-A", "trust", "--no-sync"])
        try Self.asPostgres(Self.binDirectory + "/pg_ctl", ["-D", directory + "/data", "-o", "-p \(port) -k \(directory) -c fsync=off -c max_connections=200",
                                                            "-l", directory + "/log", "-w", "start"])
        try Self.run(Self.binDirectory + "/createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "nimbus"])
    }

    /// Stops the cluster and deletes its folder (errors ignored: this is cleanup).
    func destroy() {
        try? Self.asPostgres(Self.binDirectory + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func asPostgres(_ tool: String, _ arguments: [String]) throws {
        if getuid() == 0 { try run("/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments) } else { try run(tool, arguments) }
    }

    /// Runs a tool with `posix_spawn` (Foundation's `Process` would wait for the daemon that
    /// `pg_ctl start` leaves behind).
    static func run(_ tool: String, _ arguments: [String]) throws {
        let outputPath = NSTemporaryDirectory() + "nimbus-pg-\(UUID().uuidString).log"
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
        guard spawned == 0 else { throw TestFailure("could not start \(tool): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw TestFailure("\(tool) \(arguments.joined(separator: " ")) failed (\(status)): \((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")")
        }
    }
}
