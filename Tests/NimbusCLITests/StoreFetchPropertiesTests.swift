import Foundation
import Testing

/// `store fetch --properties`, dates at full precision, and strings read from files.
@Suite("nimbus store fetch: chosen properties, precise dates, strings from files")
struct StoreFetchPropertiesTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-props-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
        let model = StoreCommandTests.fixtures.appendingPathComponent("Posts.xcdatamodeld").path
        #expect(try cli.run(["store", "create", "posts.sqlite", "--model", model]).status == 0)
    }

    private func insertPost(_ values: [String]) throws -> CLIRunner.Output {
        let base = ["identifier=\(UUID().uuidString)", "isDraft=NO", "rating=3", "score=1", "views=1", "viewsTotal=1"]
        return try cli.run(["store", "insert", "posts.sqlite", "Post"] + base + values)
    }

    @Test("--properties prints only the chosen attributes and relationships, plus objectID; an unknown name exits 64")
    func chosenProperties() throws {
        #expect(try cli.run(["store", "insert", "posts.sqlite", "Tag", "name=swift"]).status == 0)
        let made = try insertPost(["title=Hello", "createdAt=2024-02-01T00:00:00Z", "body=long text", "tags=Tag[name=swift]"])
        #expect(made.status == 0, "\(made.stderr)")
        let posts = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Post", "--properties", "title,tags", "--json"]) as? [[String: Any]])
        #expect(posts.count == 1)
        #expect(Set(try #require(posts.first).keys) == ["objectID", "title", "tags"])
        #expect((posts.first?["tags"] as? [String])?.count == 1)
        let unknown = try cli.run(["store", "fetch", "posts.sqlite", "Post", "--properties", "title,nosuch", "--json"])
        #expect(unknown.status == 64 && unknown.stderr.contains("nosuch"), "\(unknown.stderr)")
    }

    @Test("dates print in ISO 8601 with fractional seconds and read back to the same value", arguments: [
        ("2024-02-01T00:00:00Z", "2024-02-01T00:00:00.000Z"),
        ("2024-02-01T10:20:30.5Z", "2024-02-01T10:20:30.500Z"),
        ("2024-02-01T10:20:30.123456Z", "2024-02-01T10:20:30.123456Z"),
        ("1999-12-31T23:59:59.25+01:00", "1999-12-31T22:59:59.250Z"),
    ])
    func preciseDates(written: String, printed: String) throws {
        let made = try insertPost(["title=t", "createdAt=\(written)"])
        #expect(made.status == 0, "\(made.stderr)")
        let first = try #require((try cli.json(["store", "fetch", "posts.sqlite", "Post", "--properties", "createdAt", "--json"]) as? [[String: Any]])?.first)
        #expect(first["createdAt"] as? String == printed)
        // What is printed finds the object again, to the last digit.
        let again = try cli.json(["store", "fetch", "posts.sqlite", "Post", "--predicate", "createdAt == %@", "--arg", "date:\(printed)", "--count"])
        #expect(again as? Int == 1)
    }

    @Test("key=@file reads a string attribute from a UTF-8 file (longer than a command line holds); @@ escapes a leading @")
    func stringsFromFiles() throws {
        let long = String(repeating: "héllo wörld ", count: 20_000) // ~260 KB, past the ~128 KB a command line holds
        try Data(long.utf8).write(to: folder.appendingPathComponent("body.txt"))
        let made = try insertPost(["title=@@mention", "createdAt=2024-02-01T00:00:00Z", "body=@body.txt"])
        #expect(made.status == 0, "\(made.stderr)")
        let first = try #require((try cli.json(["store", "fetch", "posts.sqlite", "Post", "--json"]) as? [[String: Any]])?.first)
        #expect(first["title"] as? String == "@mention")
        #expect(first["body"] as? String == long)
        try Data([0xff, 0xfe, 0x00]).write(to: folder.appendingPathComponent("binary.bin"))
        for value in ["body=@missing.txt", "body=@binary.bin"] {
            let refused = try insertPost(["title=x", "createdAt=2024-02-01T00:00:00Z", value])
            #expect(refused.status == 64, "\(value): \(refused.stderr)")
        }
        #expect((try cli.json(["store", "fetch", "posts.sqlite", "Post", "--count"]) as? Int) == 1)
    }
}
