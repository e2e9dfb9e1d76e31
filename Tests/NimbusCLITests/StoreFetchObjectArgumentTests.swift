import Foundation
import Testing

/// `nimbus store fetch … --predicate` with objects named by URI: a `%@` argument given as
/// `--arg uri:x-coredata://…`, or the `CAST` form Nimbus's own formatter prints.
@Suite("nimbus store fetch with objects")
struct StoreFetchObjectArgumentTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-objects-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
    }

    @Test("a predicate compares with an object given by URI, as a %@ argument or in CAST form; a bad URI is a clear error")
    func objectByURI() throws {
        let model = StoreCommandTests.fixtures.appendingPathComponent("Notebook.xcdatamodeld/Notebook.xcdatamodel").path
        #expect(try cli.run(["store", "create", "notes.sqlite", "--model", model]).status == 0)
        var uris: [String] = []
        for name in ["Work", "Home"] {
            let made = try cli.run(["store", "insert", "notes.sqlite", "Folder", "name=\(name)", "createdAt=2024-01-01T00:00:00Z"])
            #expect(made.status == 0, "\(made.stderr)")
            uris.append(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        for (title, folder) in [("a", uris[0]), ("b", uris[0]), ("c", uris[1])] {
            #expect(try cli.run(["store", "insert", "notes.sqlite", "Note", "title=\(title)", "body=x", "folder=\(folder)"]).status == 0)
        }
        let byArgument = try #require(try cli.json(["store", "fetch", "notes.sqlite", "Note", "--predicate", "folder == %@", "--arg", "uri:\(uris[0])",
                                                    "--sort", "title", "--json"]) as? [[String: Any]])
        #expect(byArgument.map { $0["title"] as? String } == ["a", "b"])
        let byCast = try #require(try cli.json(["store", "fetch", "notes.sqlite", "Note", "--predicate", "folder == CAST(\"\(uris[1])\", \"NSManagedObjectID\")",
                                                "--json"]) as? [[String: Any]])
        #expect(byCast.map { $0["title"] as? String } == ["c"])
        let mixed = try cli.run(["store", "fetch", "notes.sqlite", "Note", "--predicate", "folder == %@ AND title != %@", "--arg", "uri:\(uris[1])", "--arg", "string:zz", "--count"])
        #expect(mixed.status == 0, "\(mixed.stderr)")
        #expect(mixed.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        let unknown = try cli.run(["store", "fetch", "notes.sqlite", "Note", "--predicate", "folder == %@", "--arg", "uri:x-coredata://NOSUCHSTORE/Folder/p1"])
        #expect(unknown.status == 64 && unknown.stderr.contains("no object of this store has that URI"), "\(unknown.stderr)")
        let untyped = try cli.run(["store", "fetch", "notes.sqlite", "Note", "--predicate", "folder == %@", "--arg", uris[0]])
        #expect(untyped.status == 64 && untyped.stderr.contains("unknown type"), "\(untyped.stderr)")
    }
}
