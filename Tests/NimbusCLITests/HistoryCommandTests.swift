import Foundation
import Testing

@Suite("nimbus store history")
struct HistoryCommandTests {
    let cli: CLIRunner

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
        let model = StoreCommandTests.fixtures.appendingPathComponent("Posts.json").path
        let created = try cli.run(["store", "create", "h.sqlite", "--model", model, "--history"])
        #expect(created.status == 0, "\(created.stderr)")
    }

    @Test("a store changed by three authors shows each transaction with author and changes")
    func threeAuthors() throws {
        #expect(try cli.run(["store", "insert", "h.sqlite", "Person", "name=Ada", "--author", "app"]).status == 0)
        #expect(try cli.run(["store", "insert", "h.sqlite", "Tag", "name=swift", "--author", "widget"]).status == 0)
        #expect(try cli.run(["store", "delete", "h.sqlite", "Person", "--predicate", "name == 'Ada'", "--author", "sync"]).status == 0)
        let transactions = try #require(try cli.json(["store", "history", "h.sqlite", "--json"]) as? [[String: Any]])
        #expect(transactions.map { $0["author"] as? String } == ["app", "widget", "sync"])
        let changes = transactions.map { ($0["changes"] as? [[String: Any]])?.map { "\($0["type"]!) \($0["entity"]!)" } }
        #expect(changes == [["insert Person"], ["insert Tag"], ["delete Person"]])
        let token = try #require(transactions[0]["token"] as? String)
        let after = try #require(try cli.json(["store", "history", "h.sqlite", "--after", token, "--author", "sync", "--json"]) as? [[String: Any]])
        #expect(after.count == 1)
        let text = try cli.run(["store", "history", "h.sqlite"])
        #expect(text.stdout.contains("author=widget"))
        #expect(text.stdout.contains("  insert Tag p1"))

        let last = try #require(transactions[1]["token"] as? String)
        #expect(try cli.run(["store", "purge-history", "h.sqlite", "--before", last]).stdout == "purged 2 transaction(s)\n")
        let remaining = try #require(try cli.json(["store", "history", "h.sqlite", "--json"]) as? [[String: Any]])
        #expect(remaining.map { $0["author"] as? String } == ["sync"])
    }

    @Test("bad tokens are refused with one line and exit 64 (bad input)", arguments: [
        ["store", "history", "h.sqlite", "--after", "bogus"],
        ["store", "history", "h.sqlite", "--after", "00000000-0000-0000-0000-000000000000:1"],
        ["store", "purge-history", "h.sqlite", "--before", "nope:1"],
    ])
    func badTokens(arguments: [String]) throws {
        let output = try cli.run(arguments)
        #expect(output.status == 64)
        #expect(output.stderr.contains("invalidToken"), "\(output.stderr)")
    }
}
