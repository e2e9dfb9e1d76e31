import Foundation

/// The `nimbus` executable run as a real process, for crash and start-up tests.
struct ServerProcess {
    let process: Process
    let port: Int
    let logPath: String

    /// The `nimbus` binary built beside this test bundle.
    static var executable: String {
        get throws {
            let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
            if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
            let path = directory.appendingPathComponent("nimbus").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw HarnessError("no nimbus executable at \(path); run `swift build` before the tests")
            }
            return path
        }
    }

    /// Runs a `nimbus` subcommand to completion and returns its standard output.
    static func run(_ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "nimbus-cli-\(UUID().uuidString).out"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let output = try String(contentsOfFile: outputPath, encoding: .utf8)
        guard process.terminationStatus == 0 else { throw HarnessError("nimbus \(arguments) failed: \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `nimbus serve` and waits until `/health` answers.
    static func start(dataDirectory: String, port: Int? = nil, extra: [String] = []) async throws -> (ServerProcess, Duration) {
        let port = port ?? PostgresHarness.freePort()
        let logPath = dataDirectory + ".server-\(port).log"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable)
        process.arguments = ["serve", "--data-dir", dataDirectory, "--port", String(port), "--log-level", "warning"] + extra
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        let started = ContinuousClock.now
        try process.run()
        let server = ServerProcess(process: process, port: port, logPath: logPath)
        let client = TestClient(baseURL: "http://127.0.0.1:\(port)", token: nil, container: "app")
        for _ in 0..<2000 {
            if let reply = try? await client.send(.GET, "/health"), reply.status == 200 {
                return (server, ContinuousClock.now - started)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        process.terminate()
        throw HarnessError("nimbus serve did not answer /health: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
    }

    /// Kills the server with SIGKILL, as a crash would.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server with SIGTERM and waits for it to exit.
    func terminate() {
        process.terminate()
        process.waitUntilExit()
    }
}
