import Foundation
import Testing

/// `store update … tags+=… tags-=…` and relationship values named by key or predicate,
/// resolved in the store (object URIs differ per device).
@Suite("nimbus store: relationship edits by key")
struct RelationshipEditTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
        let model = StoreCommandTests.fixtures.appendingPathComponent("Posts.xcdatamodeld").path
        #expect(try cli.run(["store", "create", "posts.sqlite", "--model", model]).status == 0)
        for name in ["swift", "linux", "old-a", "old-b"] {
            #expect(try cli.run(["store", "insert", "posts.sqlite", "Tag", "name=\(name)"]).status == 0)
        }
        #expect(try cli.run(["store", "insert", "posts.sqlite", "Person", "name=Ada", "email=ada@example.com"]).status == 0)
        #expect(try cli.run(["store", "insert", "posts.sqlite", "Person", "name=Grace"]).status == 0)
        let post = try cli.run(["store", "insert", "posts.sqlite", "Post", "title=Hello", "createdAt=2024-02-01T00:00:00Z",
                                "identifier=\(UUID().uuidString)", "isDraft=NO", "rating=3", "score=1", "views=1", "viewsTotal=1"])
        #expect(post.status == 0, "\(post.stderr)")
    }

    private func tagNames() throws -> [String] {
        let posts = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Post", "--json"]) as? [[String: Any]])
        let uris = Set(try #require(posts.first?["tags"] as? [String]))
        let tags = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Tag", "--json"]) as? [[String: Any]])
        return tags.filter { uris.contains($0["objectID"] as? String ?? "") }.compactMap { $0["name"] as? String }.sorted()
    }

    private func update(_ values: String...) throws -> CLIRunner.Output {
        try cli.run(["store", "update", "posts.sqlite", "Post", "--predicate", "title == 'Hello'"] + values)
    }

    @Test("tags+= adds by Entity[key=value] or predicate, tags-= removes, author=Person[email=…] links a to-one")
    func addAndRemove() throws {
        var output = try update("tags+=Tag[name=swift]")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try tagNames() == ["swift"])
        output = try update("tags+=name BEGINSWITH 'old'", "tags+=Tag[name=swift]")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try tagNames() == ["old-a", "old-b", "swift"], "added once, the others kept")
        output = try update("tags-=name BEGINSWITH 'old'", "tags-=Tag[name=linux]")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try tagNames() == ["swift"], "removing a non-member changes nothing")
        let linux = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Tag", "--predicate", "name == 'linux'", "--json"]) as? [[String: Any]])
        output = try update("tags+=\(try #require(linux.first?["objectID"] as? String))")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try tagNames() == ["linux", "swift"])
        output = try update("author=Person[email=ada@example.com]")
        #expect(output.status == 0, "\(output.stderr)")
        let post = try #require((try cli.json(["store", "fetch", "posts.sqlite", "Post", "--predicate", "author.name == 'Ada'", "--json"]) as? [[String: Any]])?.first)
        #expect((post["author"] as? [String])?.count == 1)
    }

    @Test("a value that names no object, a to-one given two, += on a to-one or an attribute: exit 64, nothing changes")
    func refused() throws {
        #expect(try update("tags+=Tag[name=swift]").status == 0)
        for values in [["title=Changed", "tags+=Tag[name=nosuch]"], ["title=Changed", "author=Person[email=nobody@example.com]"],
                       ["title=Changed", "tags+=Person[name=Ada]"], ["title=Changed", "tags-=Tag[color=red]"],
                       ["title=Changed", "author+=Person[name=Ada]"], ["title+=x"], ["title=Changed", "tags+=name ==="],
                       ["title=Changed", "author=TRUEPREDICATE"]] {
            let output = try cli.run(["store", "update", "posts.sqlite", "Post", "--predicate", "title == 'Hello'"] + values)
            #expect(output.status == 64, "\(values): \(output.stderr)")
            #expect(output.stderr.hasPrefix("nimbus: "), "\(output.stderr)")
        }
        #expect(try tagNames() == ["swift"])
        #expect((try cli.json(["store", "fetch", "posts.sqlite", "Post", "--predicate", "title == 'Changed'", "--count"]) as? Int) == 0)
    }
}
