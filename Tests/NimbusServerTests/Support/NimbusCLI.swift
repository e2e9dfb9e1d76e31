import Foundation

/// The `nimbus` executable run to completion with its exit status, standard output and
/// standard error, for commands expected to fail.
struct NimbusCLI {
    var status: Int32
    var output: String
    var error: String

    /// Runs `nimbus arguments…`.
    static func run(_ arguments: [String]) throws -> NimbusCLI {
        let base = NSTemporaryDirectory() + "nimbus-cli-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: base + ".out", contents: nil)
        FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ServerProcess.executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
        try process.run()
        process.waitUntilExit()
        return NimbusCLI(
            status: process.terminationStatus,
            output: try String(contentsOfFile: base + ".out", encoding: .utf8),
            error: try String(contentsOfFile: base + ".err", encoding: .utf8))
    }
}
