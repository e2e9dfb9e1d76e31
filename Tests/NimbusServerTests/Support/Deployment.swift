import Foundation
import Logging
@testable import NimbusServer

/// The reference deployment of `deploy/` (docs/deploy.md), started by a test on free ports in
/// a folder of its own: PostgreSQL primary and synchronous standby, HAProxy, three
/// `nimbus serve` processes and the replication watchdog.
struct Deployment: Sendable {
    let directory: String
    let environment: [String: String]

    static var haproxyPresent: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/haproxy") }
    /// Whether deployment tests run: PostgreSQL and HAProxy present, and always on CI.
    static var enabled: Bool { (PostgresHarness.binariesPresent && haproxyPresent) || PostgresHarness.required }

    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy").path

    var serverPorts: [Int] { environment["SERVER_PORTS"]!.split(separator: " ").compactMap { Int($0) } }
    var httpURL: String { "http://127.0.0.1:\(environment["HTTP_PORT"]!)" }
    var writeURL: String { "postgres://postgres@127.0.0.1:\(environment["PG_WRITE_PORT"]!)/nimbus" }

    /// Starts a deployment (`deploy/start.sh`).
    static func start(syncGraceSeconds: Int = 2) throws -> Deployment {
        let directory = "/tmp/nimbus-deploy-\(UUID().uuidString.prefix(8))"
        let ports = (0..<9).map { _ in PostgresHarness.freePort() }
        let environment = [
            "DEPLOY_DIR": directory, "PG_BIN": PostgresHarness.binDirectory, "NIMBUS_BIN": try ServerProcess.executable,
            "PG_A_PORT": "\(ports[0])", "PG_B_PORT": "\(ports[1])", "PG_WRITE_PORT": "\(ports[2])", "PG_READ_PORT": "\(ports[3])",
            "HTTP_PORT": "\(ports[4])", "HAPROXY_STATS_PORT": "\(ports[5])", "SERVER_PORTS": "\(ports[6]) \(ports[7]) \(ports[8])",
            "SYNC_GRACE_SECONDS": "\(syncGraceSeconds)", "NIMBUS_LOG_LEVEL": "warning",
        ]
        let deployment = Deployment(directory: directory, environment: environment)
        do {
            try deployment.script("start.sh")
        } catch {
            deployment.stop()
            throw error
        }
        return deployment
    }

    /// Runs one of `deploy/`'s scripts with this deployment's settings.
    func script(_ name: String, _ arguments: [String] = []) throws {
        try PostgresHarness.run(
            "/usr/bin/env", environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + ["/bin/bash", Self.scripts + "/" + name] + arguments)
    }

    /// Stops everything and deletes the folder. Errors are ignored: this is cleanup.
    func stop() {
        try? script("stop.sh", ["--purge"])
    }

    /// The node (`a` or `b`) HAProxy sends writes to.
    var primary: String {
        get throws { try String(contentsOfFile: directory + "/primary", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// `kill -9` of a server process.
    func killServer(port: Int) throws {
        let pid = try String(contentsOfFile: directory + "/server-\(port).pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try PostgresHarness.run("/bin/kill", ["-9", pid])
    }

    /// `kill -9` of a PostgreSQL node's postmaster and every process it started, as if its
    /// machine had gone.
    func killNode(_ node: String) throws {
        let pidFile = try String(contentsOfFile: directory + "/pg-\(node)/data/postmaster.pid", encoding: .utf8)
        guard let pid = pidFile.split(separator: "\n").first.map(String.init) else { throw HarnessError("no postmaster pid for \(node)") }
        let children = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { entry in
            guard Int(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && String(fields[1]) == pid
        } ?? []
        try PostgresHarness.run("/bin/kill", ["-9", pid] + children)
    }

    /// Adds users and returns a token for each of their devices, written through the
    /// deployment's PostgreSQL write port.
    func tokens(users: [String], devicesPerUser: Int) async throws -> [(user: String, device: String, token: String)] {
        var configuration = ServerConfiguration(dataDirectory: directory + "/admin")
        configuration.postgresURL = writeURL
        var logger = Logger(label: "nimbus.test.deploy")
        logger.logLevel = .critical
        return try await StorageFactory.withStorage(configuration: configuration, logger: logger) { storage in
            let admin = AccountAdmin(storage: storage, clock: .system)
            var tokens: [(user: String, device: String, token: String)] = []
            for user in users {
                _ = try await admin.addUser(name: user)
                for index in 0..<devicesPerUser {
                    let device = "\(user)-d\(index)"
                    tokens.append((user, device, try await admin.createToken(userName: user, device: device)))
                }
            }
            return tokens
        }
    }
}
