import Foundation
import NimbusTesting
import Testing

/// Using a context or its objects off the context's queue stops the process with a message
/// naming the context and the fix (decision 0015); correct use through `perform`,
/// `performAndWait`, `await perform` and the main thread passes. Each scenario runs in a
/// child process (`ConfinementWorker`), since a trap would end the test runner.
@Suite("Queue confinement")
struct QueueConfinementTests {
    static var workerURL: URL {
        let directory = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()]
        return candidates.map { $0.appendingPathComponent("ConfinementWorker") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? directory.appendingPathComponent("ConfinementWorker")
    }

    /// Runs the worker on a scenario: its exit status, stdout and stderr.
    static func run(_ scenario: String) throws -> (status: Int32, reason: Process.TerminationReason, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = workerURL
        process.arguments = [scenario]
        // No backtrace: the message is what the test reads, and symbolication is slow.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let (stdout, stderr) = try process.runCapturingOutput()
        return (process.terminationStatus, process.terminationReason,
                String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    @Test("misuse stops the process with a message naming the context, the call and the fix", arguments: [
        ("context-fetch", "ManagedObjectContext.fetch(_:)", "private-queue context \"worker\""),
        ("object-read", "ManagedObject.value(forKey:) on Post", "private-queue context \"worker\""),
        ("typed-read", "ManagedObject.title on Post", "private-queue context \"worker\""),
        ("object-write", "ManagedObject.setValue(_:forKey:) on Post", "private-queue context \"worker\""),
        ("context-save-from-other-context", "ManagedObjectContext.save()", "private-queue context \"worker\""),
        ("main-context-off-main-thread", "ManagedObjectContext.count(for:)", "main-queue context \"viewContext\""),
    ])
    func misuseTraps(scenario: String, call: String, context: String) throws {
        let result = try Self.run(scenario)
        #expect(result.stdout.contains("misusing"), "the worker failed before the misuse: \(result.stderr)")
        #expect(result.reason == .uncaughtSignal, "exit \(result.status): \(result.stdout) \(result.stderr)")
        #expect(result.stderr.contains("Nimbus queue confinement violated: \(call)"), "\(result.stderr)")
        #expect(result.stderr.contains("off the queue of the \(context)"), "\(result.stderr)")
        #expect(result.stderr.contains("perform"), "the message says how to fix the call: \(result.stderr)")
    }

    @Test("perform, performAndWait, await perform, the main thread and nested contexts pass")
    func correctUsePasses() throws {
        let result = try Self.run("correct")
        #expect(result.reason == .exit && result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ok"))
    }
}
