import Foundation
import NimbusTesting
import Testing

/// Issue 28, item 7: the README's shell snippets run as written on a fresh clone. They run in
/// order, in one shell, in an empty folder holding the repository's `Examples`, with the
/// built `nimbus` on the PATH. Three substitutions only: `swift build` and `swift test` are
/// skipped (the tests run after a build, and a nested `swift test` would wait for this one),
/// `swift run nimbus` is the built `nimbus` (what `swift run` runs), and port 8080 is a free
/// port (other tests may hold 8080).
@Suite("README snippets", .serialized)
struct ReadmeSnippetTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README's ```sh blocks, in order.
    static func shellBlocks() throws -> [String] {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line.hasPrefix("```sh") { current = [] } else if current != nil, line.hasPrefix("```") {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil { current!.append(String(line)) }
        }
        return blocks
    }

    @Test("every shell snippet of the README runs, in order, and exits 0")
    func shellSnippets() throws {
        let blocks = try Self.shellBlocks()
        #expect(blocks.count >= 3)
        let port = String(SyncServer.freePort())
        var script = ["set -euo pipefail", "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT"]
        for block in blocks {
            for line in block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("swift build") || trimmed.hasPrefix("swift test") { continue }
                script.append(line.replacingOccurrences(of: "swift run nimbus ", with: "nimbus ")
                    .replacingOccurrences(of: "8080", with: port))
            }
        }
        let folder = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(at: folder.url.appendingPathComponent("Examples"),
                                                   withDestinationURL: Self.repository.appendingPathComponent("Examples"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script.joined(separator: "\n")]
        process.currentDirectoryURL = folder.url
        let binaries = URL(fileURLWithPath: try SyncServer.executable).deletingLastPathComponent().path
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let (output, error) = try process.runCapturingOutput()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0,
                "the README's snippets failed:\n\(String(decoding: output, as: UTF8.self).suffix(3000))\n\(String(decoding: error, as: UTF8.self).suffix(3000))")
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("backup.sqlite").path))
    }
}
