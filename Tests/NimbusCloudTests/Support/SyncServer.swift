import Foundation
import NimbusCloud
import NimbusTesting

/// A real `nimbus serve` process on loopback with a user and device tokens made before it
/// starts (through `nimbus users add` / `nimbus tokens create`).
final class SyncServer: @unchecked Sendable {
    let process: Process
    let port: Int
    let folder: TemporaryDirectory
    let tokens: [String]
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    static var executable: String {
        get throws {
            let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            var directory = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
            if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
            let path = directory.appendingPathComponent("nimbus").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestFailure("no nimbus executable at \(path); run `swift build` before the tests")
            }
            return path
        }
    }

    /// Runs `nimbus` with arguments and returns its standard output (throws on a non-zero exit).
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let (output, error) = try process.runCapturingOutput()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    /// A token for each other user (one device each).
    private(set) var otherTokens: [String: String] = [:]

    init(devices: Int = 2, user: String = "alice", otherUsers: [String] = [], quotaBytes: Int? = nil,
         serveArguments: [String] = []) async throws {
        folder = try TemporaryDirectory()
        let data = folder.url.appendingPathComponent("server").path
        try Self.check(Self.run(["users", "add", user, "--data-dir", data] + (quotaBytes.map { ["--quota-bytes", String($0)] } ?? [])))
        for other in otherUsers {
            try Self.check(Self.run(["users", "add", other, "--data-dir", data]))
            let result = try Self.run(["tokens", "create", "--user", other, "--device", "device", "--data-dir", data])
            try Self.check(result)
            otherTokens[other] = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var tokens: [String] = []
        for index in 0..<devices {
            let result = try Self.run(["tokens", "create", "--user", user, "--device", "device\(index)", "--data-dir", data])
            try Self.check(result)
            tokens.append(result.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        self.tokens = tokens
        port = Self.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable)
        process.arguments = ["serve", "--data-dir", data, "--port", String(port), "--log-level", "error"] + serveArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<1000 {
            let transport = HTTPTransport(options: CloudContainerOptions(serverURL: url, containerIdentifier: "app", token: ""))
            if (try? await transport.checkServer()) != nil { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("nimbus serve did not start")
    }

    static func check(_ result: (status: Int32, output: String, error: String)) throws {
        guard result.status == 0 else { throw TestFailure("nimbus failed (\(result.status)): \(result.error)") }
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }

    static func freePort() -> Int {
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension SyncServer {
    /// The file of a device folder's (first) mirrored store, from `nimbus device status --json`.
    static func storePath(_ directory: String) throws -> String {
        let result = try run(["device", "status", directory, "--json"])
        try check(result)
        guard let stores = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]],
              let path = stores.first?["storePath"] as? String else {
            throw TestFailure("no store in the status of \(directory): \(result.output) (stderr: \(result.error))")
        }
        return path
    }
}
