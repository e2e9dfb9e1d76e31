import Foundation
import Testing

/// `nimbus store import <store> <Entity> --jsonl FILE` (issue 29): one object per line, in one save.
@Suite("nimbus store import")
struct StoreImportTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
        let model = StoreCommandTests.fixtures.appendingPathComponent("Posts.xcdatamodeld").path
        let output = try cli.run(["store", "create", "posts.sqlite", "--model", model])
        #expect(output.status == 0, "\(output.stderr)")
    }

    private func write(_ lines: [String], to name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func people() throws -> [[String: Any]] {
        try #require(try cli.json(["store", "fetch", "posts.sqlite", "Person", "--json"]) as? [[String: Any]])
    }

    @Test("every line becomes an object, in one save; strings, numbers, booleans and null as store insert takes them")
    func importsEveryLine() throws {
        let file = try write([
            #"{"name": "Ada", "email": "ada@example.com", "birthday": "1990-01-01T00:00:00Z"}"#,
            "",
            #"{"name": "Grace", "email": null}"#,
        ], to: "people.jsonl")
        let output = try cli.run(["store", "import", "posts.sqlite", "Person", "--jsonl", file])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("imported 2 Person object(s)"), "\(output.stdout)")
        let found = try people().sorted { ($0["name"] as? String ?? "") < ($1["name"] as? String ?? "") }
        #expect(found.map { $0["name"] as? String } == ["Ada", "Grace"])
        #expect(found.first?["email"] as? String == "ada@example.com")
        #expect(found.last?["email"] == nil || found.last?["email"] is NSNull)

        let posts = try write([#"{"title": "Numbers", "views": 3, "isDraft": false, "score": 2.5}"#], to: "posts.jsonl")
        let post = try cli.run(["store", "import", "posts.sqlite", "Post", "--jsonl", posts])
        #expect(post.status == 0, "\(post.stderr)")
        let saved = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Post", "--json"]) as? [[String: Any]])
        #expect(saved.count == 1)
        #expect(saved.first?["views"] as? Int == 3)
        #expect(saved.first?["isDraft"] as? Bool == false)
        #expect(saved.first?["score"] as? Double == 2.5)
    }

    @Test("bad lines are reported by line number, and nothing is saved")
    func badLinesSaveNothing() throws {
        let file = try write([
            #"{"name": "Ada"}"#,
            #"not json"#,
            #"{"name": "Bob", "nickname": "b"}"#,
            #"{"name": "Cy", "email": "no-at-sign"}"#,
            #"{"name": "Dee"}"#,
            #"[1, 2]"#,
            #"{"name": "Eve", "birthday": "yesterday"}"#,
        ], to: "bad.jsonl")
        let output = try cli.run(["store", "import", "posts.sqlite", "Person", "--jsonl", file])
        #expect(output.status == 64, "\(output.status): \(output.stdout) \(output.stderr)")
        for line in [2, 3, 4, 6, 7] { #expect(output.stderr.contains("line \(line):"), "line \(line): \(output.stderr)") }
        for line in [1, 5] { #expect(!output.stderr.contains("line \(line):"), "line \(line): \(output.stderr)") }
        #expect(output.stderr.contains("nothing saved"), "\(output.stderr)")
        #expect(try people().isEmpty)
    }

    @Test("an unknown entity or an unreadable file is bad input and changes nothing")
    func badArguments() throws {
        let file = try write([#"{"name": "Ada"}"#], to: "one.jsonl")
        let entity = try cli.run(["store", "import", "posts.sqlite", "Nobody", "--jsonl", file])
        #expect(entity.status == 64 && entity.stderr.contains("Nobody"), "\(entity.stderr)")
        let missing = try cli.run(["store", "import", "posts.sqlite", "Person", "--jsonl", folder.appendingPathComponent("none.jsonl").path])
        #expect(missing.status == 64 && missing.stderr.contains("none.jsonl"), "\(missing.stderr)")
        #expect(try people().isEmpty)
    }
}
