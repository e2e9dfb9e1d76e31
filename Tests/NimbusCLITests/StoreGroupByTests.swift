import Foundation
import Testing

/// `nimbus store fetch --group-by/--having/--count`: the seed's duplicate finder from the shell.
@Suite("nimbus store fetch --group-by")
struct StoreGroupByTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
        // People without a uniqueness constraint on email, as in the seed that finds duplicates.
        let model = folder.appendingPathComponent("People.json")
        try Data(#"{"format": 1, "entities": [{"name": "Person", "attributes": [{"name": "name", "type": "string"}, {"name": "email", "type": "string"}]}]}"#.utf8).write(to: model)
        let created = try cli.run(["store", "create", "people.sqlite", "--model", model.path])
        #expect(created.status == 0, "\(created.stderr)")
        for (name, email) in [("Ada", "ada@example.com"), ("Ada L", "ada@example.com"), ("Grace", "grace@example.com"),
                              ("Alan", "alan@example.com"), ("Alan T", "alan@example.com"), ("Turing", "alan@example.com"),
                              ("Nobody", nil)] as [(String, String?)] {
            let inserted = try cli.run(["store", "insert", "people.sqlite", "Person", "name=\(name)"] + (email.map { ["email=\($0)"] } ?? []))
            #expect(inserted.status == 0, "\(inserted.stderr)")
        }
    }

    @Test("--group-by email --having \"count > 1\" --count --json prints each duplicated email with its count")
    func duplicates() throws {
        let groups = try #require(try cli.json(["store", "fetch", "people.sqlite", "Person", "--group-by", "email",
                                                 "--having", "count > 1", "--count", "--json"]) as? [[String: Any]])
        #expect(groups.count == 2)
        #expect(groups.map { $0["email"] as? String } == ["ada@example.com", "alan@example.com"])
        #expect(groups.map { $0["count"] as? Int } == [2, 3])
        #expect(groups.allSatisfy { $0.keys.sorted() == ["count", "email"] })
    }

    @Test("--group-by with --count and no --having counts every group, sorted by the keys; text output is one line each")
    func allGroups() throws {
        let output = try cli.run(["store", "fetch", "people.sqlite", "Person", "--group-by", "email", "--count"])
        #expect(output.status == 0, "\(output.stderr)")
        // The nil group counts its objects too (Nobody has no email).
        #expect(output.stdout.split(separator: "\n") == ["count=1", "count=2  email=ada@example.com", "count=3  email=alan@example.com",
                                                         "count=1  email=grace@example.com"])
    }

    @Test("--sort count:desc lists the most duplicated first, and --limit slices after counting")
    func sortByCount() throws {
        let groups = try #require(try cli.json(["store", "fetch", "people.sqlite", "Person", "--group-by", "email", "--count",
                                                 "--predicate", "email != nil", "--sort", "count:desc", "--sort", "email", "--limit", "2", "--json"]) as? [[String: Any]])
        #expect(groups.map { $0["email"] as? String } == ["alan@example.com", "ada@example.com"])
        #expect(groups.map { $0["count"] as? Int } == [3, 2])
        let refused = try cli.run(["store", "fetch", "people.sqlite", "Person", "--group-by", "email", "--sort", "count"])
        #expect(refused.status != 0 && refused.stderr.contains("--sort count needs --count"), "\(refused.stderr)")
    }

    @Test("--group-by is repeatable, combines with --predicate, --sort and --limit, and works without --count")
    func repeatedKeys() throws {
        let groups = try #require(try cli.json(["store", "fetch", "people.sqlite", "Person", "--group-by", "email", "--group-by", "name",
                                                 "--predicate", "email BEGINSWITH 'a'", "--sort", "name:desc", "--limit", "2", "--json"]) as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["Turing", "Alan T"])
        #expect(groups.allSatisfy { $0.keys.sorted() == ["email", "name"] })
        let distinct = try #require(try cli.json(["store", "fetch", "people.sqlite", "Person", "--group-by", "email",
                                                   "--predicate", "email != nil", "--json"]) as? [[String: Any]])
        #expect(distinct.compactMap { $0["email"] as? String } == ["ada@example.com", "alan@example.com", "grace@example.com"])
    }

    @Test("--having without --group-by, count without --count, and unknown keys are refused with one line on stderr", arguments: [
        (["--having", "count > 1"], "--having needs --group-by"),
        (["--group-by", "email", "--having", "count > 1"], "add --count"),
        (["--group-by", "nope", "--count"], "no property nope"),
    ])
    func badInput(arguments: [String], message: String) throws {
        let output = try cli.run(["store", "fetch", "people.sqlite", "Person"] + arguments)
        #expect(output.status != 0 && output.status < 128)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
    }

    @Test("a malformed --having is refused with the column of the mistake")
    func malformedHaving() throws {
        let output = try cli.run(["store", "fetch", "people.sqlite", "Person", "--group-by", "email", "--count", "--having", "count >"])
        #expect(output.status != 0 && output.status < 128)
        #expect(output.stderr.hasPrefix("nimbus: invalidPredicate"), "\(output.stderr)")
        #expect(output.stderr.contains("at column 8"), "\(output.stderr)")
    }
}
