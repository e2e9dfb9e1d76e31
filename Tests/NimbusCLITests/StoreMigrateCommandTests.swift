import Foundation
import GRDB
import Testing

/// `nimbus store migrate`, and the store commands real apps' stores need, on the Notebook
/// app's model (five Xcode versions and a mapping model).
@Suite("nimbus store migrate")
struct StoreMigrateCommandTests {
    let folder: URL
    let cli: CLIRunner
    static let package = StoreCommandTests.fixtures.appendingPathComponent("Notebook.xcdatamodeld")
    static let mapping = StoreCommandTests.fixtures.appendingPathComponent("Notebook2to3.xcmappingmodel")

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
    }

    /// A store at version 1 with a folder, two notes and a tag; an empty folder too.
    private func createVersion1() throws {
        let created = try cli.run(["store", "create", "notes.sqlite", "--model", Self.package.appendingPathComponent("Notebook.xcdatamodel").path])
        #expect(created.status == 0, "\(created.stderr)")
        let work = try cli.run(["store", "insert", "notes.sqlite", "Folder", "name=Work", "createdAt=2024-01-01T00:00:00Z"])
        #expect(work.status == 0, "\(work.stderr)")
        let empty = try cli.run(["store", "insert", "notes.sqlite", "Folder", "name=Empty", "createdAt=2024-01-02T00:00:00Z"])
        #expect(empty.status == 0, "an empty required to-many is accepted: \(empty.stderr)")
        let uri = work.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for (title, body) in [("todo", "milk"), ("scratch", "tmp")] {
            let note = try cli.run(["store", "insert", "notes.sqlite", "Note", "title=\(title)", "body=\(body)", "folder=\(uri)"])
            #expect(note.status == 0, "\(note.stderr)")
        }
        #expect(try cli.run(["store", "insert", "notes.sqlite", "Tag", "name=work"]).status == 0)
    }

    @Test("--dry-run prints each stage and entity with row counts, runs the plan on a copy, reports the real run's failure, and changes nothing")
    func dryRun() throws {
        try createVersion1()
        let before = try StoreCommandTests.contents(of: folder.appendingPathComponent("notes.sqlite").path)
        let output = try cli.run(["store", "migrate", "notes.sqlite", "--model", Self.package.path, "--mapping", Self.mapping.path, "--dry-run"])
        // The real run fails on the custom policy this program lacks: so does the dry run.
        #expect(output.status == 64, "\(output.stdout)")
        #expect(output.stderr.contains("a trial run on a copy of the store fails"), "\(output.stderr)")
        #expect(output.stderr.contains("no migration policy is registered as NotebookApp.NoteMigrationPolicy"), "\(output.stderr)")
        #expect(!output.stderr.contains(".migration/"), "the copy's path is not shown: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "stage 1/4: Notebook → Notebook 2 — lightweight")
        #expect(lines.contains("  Folder (copy): 2 rows"))
        #expect(lines.contains("  Note (transform): 2 rows"))
        #expect(lines.contains("      renamed body → text"))
        #expect(lines.contains("  Tag (copy): 1 row"))
        #expect(lines.contains { $0.hasPrefix("stage 2/4: Notebook 2 → Notebook 3 — custom (mapping model ") })
        #expect(lines.contains("  Folder → Notebook (transform): 2 rows"))
        #expect(lines.contains("  Tag (remove): 1 row dropped"))
        #expect(lines.contains("      only objects where title != \"scratch\""))
        #expect(lines.contains("stage 4/4: Notebook 4 → Notebook 5 — lightweight"))
        #expect(lines.contains("  Note (copy): up to 2 rows"), "a stage after the mapping's filter gives an upper bound")
        #expect(try StoreCommandTests.contents(of: folder.appendingPathComponent("notes.sqlite").path) == before)
        let jsonRun = try cli.run(["store", "migrate", "notes.sqlite", "--model", Self.package.path, "--mapping", Self.mapping.path, "--dry-run", "--json"])
        #expect(jsonRun.status == 64)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(jsonRun.stdout.utf8)) as? [[String: Any]])
        #expect(json.map { $0["label"] as? String } == ["Notebook → Notebook 2", "Notebook 2 → Notebook 3", "Notebook 3 → Notebook 4", "Notebook 4 → Notebook 5"])
        #expect(try StoreCommandTests.contents(of: folder.appendingPathComponent("notes.sqlite").path) == before)
        // A plan that works says so after its preview.
        let lightweight = try cli.run(["store", "migrate", "notes.sqlite", "--model", Self.package.appendingPathComponent("Notebook 2.xcdatamodel").path, "--dry-run"])
        #expect(lightweight.status == 0, "\(lightweight.stderr)")
        #expect(lightweight.stdout.contains("a trial run on a copy of the store succeeded"), "\(lightweight.stdout)")
        #expect(try StoreCommandTests.contents(of: folder.appendingPathComponent("notes.sqlite").path) == before)
    }

    @Test("a lightweight migrate moves the store; a mapping whose policy this program lacks is refused and changes nothing")
    func migrate() throws {
        try createVersion1()
        let store = folder.appendingPathComponent("notes.sqlite").path
        let before = try StoreCommandTests.contents(of: store)
        let refused = try cli.run(["store", "migrate", "notes.sqlite", "--model", Self.package.path, "--mapping", Self.mapping.path])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("no migration policy is registered as NotebookApp.NoteMigrationPolicy"), "\(refused.stderr)")
        #expect(refused.stderr.contains("the store at \(store) was not changed"), "\(refused.stderr)")
        #expect(try StoreCommandTests.contents(of: store) == before)
        let moved = try cli.run(["store", "migrate", "notes.sqlite", "--model", Self.package.appendingPathComponent("Notebook 2.xcdatamodel").path])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.hasPrefix("migrated notes.sqlite through 1 stage(s)"), "\(moved.stdout)")
        #expect(moved.stderr.contains("stage 1/1"), "progress goes to stderr: \(moved.stderr)")
        let notes = try #require(try cli.json(["store", "fetch", "notes.sqlite", "Note", "--sort", "title", "--json"]) as? [[String: Any]])
        #expect(notes.map { $0["text"] as? String } == ["tmp", "milk"])
        #expect(notes.map { $0["starred"] as? Bool } == [false, false])
        let again = try cli.run(["store", "migrate", "notes.sqlite", "--model", Self.package.appendingPathComponent("Notebook 2.xcdatamodel").path])
        #expect(again.stdout.contains("nothing to do"))
    }

    @Test("store create refuses an existing file; a duplicate is a constraint conflict message; history without history says so")
    func storeCommands() throws {
        try createVersion1()
        let store = folder.appendingPathComponent("notes.sqlite").path
        let before = try StoreCommandTests.contents(of: store)
        let create = try cli.run(["store", "create", "notes.sqlite", "--model", StoreCommandTests.fixtures.appendingPathComponent("Posts.json").path])
        #expect(create.status == 64)
        #expect(create.stderr.contains("notes.sqlite already exists; nothing was changed"), "\(create.stderr)")
        #expect(try StoreCommandTests.contents(of: store) == before)
        let duplicate = try cli.run(["store", "insert", "notes.sqlite", "Tag", "name=work"])
        #expect(duplicate.status == 64)
        #expect(duplicate.stderr == "nimbus: constraintConflict: another Tag already has the same name (name = \"work\"): Tag's uniqueness constraint (name) allows one object per value; "
            + "nothing was saved (change or delete the duplicates, or set the context's mergePolicy: mergeByPropertyObjectTrump upserts)\n")
        let history = try cli.run(["store", "history", "notes.sqlite"])
        #expect(history.status == 64)
        #expect(history.stderr.contains("does not record persistent history"), "\(history.stderr)")
    }

    @Test("inspect shows attributes, relationships, indexes, constraints and model notes; a parent counts its sub-entities' rows")
    func inspect() throws {
        try createVersion1()
        let text = try cli.run(["store", "inspect", "notes.sqlite"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("  Note  2 rows"))
        #expect(lines.contains("  Tag  1 row"))
        #expect(lines.contains("    name: string = \"\""))
        #expect(lines.contains("    sortOrder: integer32 = 0"))
        #expect(lines.contains("    body: string?"))
        #expect(lines.contains("    thumbnail: binaryData? external storage"))
        #expect(lines.contains("    folder -> Folder inverse notes delete nullify"))
        #expect(lines.contains("    notes -> [Note] inverse folder delete cascade"))
        #expect(lines.contains("    index byFolderAndTags (folder)"))
        #expect(lines.contains("    unique (name)"))
        #expect(lines.contains("model notes"))
        #expect(lines.contains { $0.contains("fetch index element on to-many relationship tags") })

        let created = try cli.run(["store", "create", "posts.sqlite", "--model", StoreCommandTests.fixtures.appendingPathComponent("Posts.json").path])
        #expect(created.status == 0)
        let image = try cli.run(["store", "insert", "posts.sqlite", "ImageAttachment", "fileName=a.png"])
        #expect(image.status == 0, "\(image.stderr)")
        let info = try #require(try cli.json(["store", "inspect", "posts.sqlite", "--json"]) as? [String: Any])
        let entities = try #require(info["entities"] as? [[String: Any]])
        let attachment = try #require(entities.first { $0["name"] as? String == "Attachment" })
        #expect(attachment["count"] as? Int == 1 && attachment["ownCount"] as? Int == 0, "an abstract parent counts its sub-entities' rows")
        #expect((attachment["attributes"] as? [[String: Any]])?.map { $0["name"] as? String } == ["createdAt", "fileName"])
        let posts = try cli.run(["store", "inspect", "posts.sqlite"])
        #expect(posts.stdout.contains("  Attachment (abstract)  1 row (0 of its own)"), "\(posts.stdout)")
    }
}
