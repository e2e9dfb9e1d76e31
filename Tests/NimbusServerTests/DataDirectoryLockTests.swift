import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("One server per SQLite data directory", .stopsServers)
struct DataDirectoryLockTests {
    @Test("a second server on the same SQLite data directory is refused until the first stops")
    func inProcess() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-lock-\(UUID().uuidString)"
        let first = try await TestServer.start(.sqlite, dataDirectory: directory)
        let error = await #expect(throws: DataDirectoryLock.LockedError.self) {
            _ = try await NimbusServerApp.make(configuration: ServerConfiguration(dataDirectory: directory, port: 0))
        }
        #expect(error?.description.contains(directory) == true)
        await first.stop()
        let second = try await TestServer.start(.sqlite, dataDirectory: directory)
        await second.stop()
    }

    @Test("deleting nimbus.lock under a running server does not let a second one start")
    func deletedLockFile() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-lock-\(UUID().uuidString)"
        let first = try await TestServer.start(.sqlite, dataDirectory: directory)
        try FileManager.default.removeItem(atPath: directory + "/nimbus.lock")
        await #expect(throws: DataDirectoryLock.LockedError.self) {
            _ = try await NimbusServerApp.make(configuration: ServerConfiguration(dataDirectory: directory, port: 0))
        }
        await first.stop()
    }

    @Test("a second nimbus serve on the same data directory exits non-zero with a clear error")
    func secondProcess() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-lock-\(UUID().uuidString)"
        let (first, _) = try await ServerProcess.start(dataDirectory: directory)
        defer { first.terminate() }
        let output = NSTemporaryDirectory() + "nimbus-lock-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let second = Process()
        second.executableURL = URL(fileURLWithPath: try ServerProcess.executable)
        second.arguments = ["serve", "--data-dir", directory, "--port", String(PostgresHarness.freePort())]
        second.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        second.standardError = second.standardOutput
        try second.run()
        let deadline = ContinuousClock.now + .seconds(20)
        while second.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if second.isRunning {
            second.terminate()
            second.waitUntilExit()
            Issue.record("the second nimbus serve kept running")
            return
        }
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(second.terminationStatus != 0)
        #expect(text.contains("another nimbus server"), "\(text)")
        #expect(first.process.isRunning)
    }
}
