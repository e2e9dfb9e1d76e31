import Foundation
import Testing

/// The documented exit codes (`nimbus help exit-codes`) and error lines in Nimbus's words.
@Suite("nimbus exit codes")
struct ExitCodeTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-exit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
    }

    @Test("nimbus help exit-codes prints the table: done, bad input, internal error, retry later, needs the user")
    func table() throws {
        for arguments in [["help", "exit-codes"], ["exit-codes"]] {
            let output = try cli.run(arguments)
            #expect(output.status == 0, "\(output.stderr)")
            for (code, name) in [(0, "done"), (64, "bad input"), (70, "internal error"), (75, "retry later"), (77, "needs the user")] {
                #expect(output.stdout.contains("\(code)") && output.stdout.contains("\(name):"), "\(arguments): \(output.stdout)")
            }
        }
    }

    @Test("bad input exits 64 with one line in Nimbus's words; a command line ArgumentParser rejects too")
    func badInput() throws {
        let model = StoreCommandTests.fixtures.appendingPathComponent("Posts.xcdatamodeld").path
        #expect(try cli.run(["store", "create", "posts.sqlite", "--model", model]).status == 0)
        for arguments in [["store", "insert", "posts.sqlite", "Post", "nosuchkey=1"],
                          ["store", "fetch", "posts.sqlite", "Post", "--predicate", "title ==="],
                          ["store", "fetch", "missing.sqlite", "Post"],
                          ["store", "fetch", "posts.sqlite", "Post", "--no-such-flag"]] {
            let output = try cli.run(arguments)
            #expect(output.status == 64, "\(arguments): \(output.stderr)")
            #expect(!output.stderr.isEmpty)
        }
        let unknown = try cli.run(["store", "insert", "posts.sqlite", "Post", "nosuchkey=1"])
        #expect(unknown.stderr.hasPrefix("nimbus: Post has no property 'nosuchkey'"), "\(unknown.stderr)")
        #expect(unknown.stderr.split(separator: "\n").count == 1)
    }

    @Test("a file the CLI reads that is damaged is bad input, named in Nimbus's words before the decoder's text")
    func damagedDeviceModel() throws {
        let device = folder.appendingPathComponent("device")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        try Data(#"{"server":"http://127.0.0.1:1","container":"c"}"#.utf8).write(to: device.appendingPathComponent("device.json"))
        try Data("{not a model".utf8).write(to: device.appendingPathComponent("model.json"))
        let output = try cli.run(["device", "status", device.path])
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.hasPrefix("nimbus: "), "\(output.stderr)")
        #expect(!output.stderr.hasPrefix("nimbus: dataCorrupted") && !output.stderr.hasPrefix("Error:"), "\(output.stderr)")
    }
}
