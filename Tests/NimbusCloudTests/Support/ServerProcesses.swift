import Foundation
import NimbusCloud
import NimbusTesting

/// `nimbus serve` processes on fixed loopback ports over one data directory (or one
/// PostgreSQL database), each of which can be killed with SIGKILL and started again on its
/// port, for tests that take the server away mid-sync.
final class ServerProcesses: @unchecked Sendable {
    let folder: TemporaryDirectory
    let ports: [Int]
    let tokens: [String]
    /// Tokens of the other users, per user (one per device).
    let otherTokens: [String: [String]]
    let postgres: String?
    private var processes: [Process?]
    var dataDirectory: String { folder.url.appendingPathComponent("server").path }

    /// Makes a user with `devices` tokens (and other users with theirs) and starts `count` servers.
    init(devices: Int, otherUsers: [String: Int] = [:], count: Int = 1, postgres: String? = nil) async throws {
        folder = try TemporaryDirectory()
        self.postgres = postgres
        let storage = postgres.map { ["--postgres", $0] } ?? []
        let data = folder.url.appendingPathComponent("server").path
        try SyncServer.check(SyncServer.run(["users", "add", "alice", "--data-dir", data] + storage))
        var tokens: [String] = []
        for index in 0..<devices {
            let result = try SyncServer.run(["tokens", "create", "--user", "alice", "--device", "device\(index)",
                                             "--data-dir", folder.url.appendingPathComponent("server").path] + storage)
            try SyncServer.check(result)
            tokens.append(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        self.tokens = tokens
        var otherTokens: [String: [String]] = [:]
        for (user, count) in otherUsers.sorted(by: { $0.key < $1.key }) {
            try SyncServer.check(SyncServer.run(["users", "add", user, "--data-dir", data] + storage))
            for index in 0..<count {
                let result = try SyncServer.run(["tokens", "create", "--user", user, "--device", "device\(index)", "--data-dir", data] + storage)
                try SyncServer.check(result)
                otherTokens[user, default: []].append(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        self.otherTokens = otherTokens
        ports = (0..<count).map { _ in SyncServer.freePort() }
        processes = Array(repeating: nil, count: count)
        for index in 0..<count { try await start(index) }
    }

    /// Starts server `index` on its port and waits until it answers `/health`.
    func start(_ index: Int) async throws {
        guard processes[index]?.isRunning != true else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SyncServer.executable)
        process.arguments = ["serve", "--data-dir", dataDirectory, "--port", String(ports[index]), "--log-level", "error"]
            + (postgres.map { ["--postgres", $0] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes[index] = process
        let url = URL(string: "http://127.0.0.1:\(ports[index])")!
        for _ in 0..<1500 {
            let transport = HTTPTransport(options: CloudContainerOptions(serverURL: url, containerIdentifier: "app", token: ""))
            if (try? await transport.checkServer()) != nil { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("nimbus serve did not start on port \(ports[index])")
    }

    /// Kills server `index` with SIGKILL (a crash: no graceful shutdown).
    func kill(_ index: Int) {
        guard let process = processes[index], process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    var isRunning: [Bool] { processes.map { $0?.isRunning == true } }

    func stop() {
        for process in processes.compactMap({ $0 }) where process.isRunning {
            process.terminate()
            for _ in 0..<500 where process.isRunning { usleep(10_000) }
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
