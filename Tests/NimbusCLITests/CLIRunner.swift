import Foundation
import NimbusTesting

/// Runs the built `nimbus` executable and captures what it prints.
struct CLIRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: URL {
        let directory = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent("nimbus") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? directory.appendingPathComponent("nimbus")
    }

    let directory: URL

    @discardableResult
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let (stdout, stderr) = try process.runCapturingOutput()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    func json(_ arguments: [String]) throws -> Any {
        let output = try run(arguments)
        guard output.status == 0 else { throw CLIFailure(output: output) }
        return try JSONSerialization.jsonObject(with: Data(output.stdout.utf8), options: [.fragmentsAllowed])
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    var output: CLIRunner.Output
    var description: String { "exit \(output.status): \(output.stderr)" }
}
