import Foundation
import Testing

/// `nimbus store copy` and `nimbus store destroy`, run as a user runs them.
@Suite("nimbus store copy and destroy")
struct StoreDestroyTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
    }

    @Test("copy a store, destroy the original (file, -wal and -shm gone), the copy still reads; bad input is a clear error")
    func copyThenDestroy() throws {
        let model = StoreCommandTests.fixtures.appendingPathComponent("Posts.xcdatamodeld").path
        #expect(try cli.run(["store", "create", "posts.sqlite", "--model", model]).status == 0)
        let inserted = try cli.run(["store", "insert", "posts.sqlite", "Tag", "name=swift"])
        #expect(inserted.status == 0, "\(inserted.stderr)")
        let copied = try cli.run(["store", "copy", "posts.sqlite", "copy.sqlite"])
        #expect(copied.status == 0, "\(copied.stderr)")

        let destroyed = try cli.run(["store", "destroy", "posts.sqlite"])
        #expect(destroyed.status == 0, "\(destroyed.stderr)")
        #expect(destroyed.stdout == "destroyed posts.sqlite\n")
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("posts.sqlite" + suffix).path))
        }
        let fetched = try cli.run(["store", "fetch", "copy.sqlite", "Tag", "--predicate", "TRUEPREDICATE"])
        #expect(fetched.status == 0 && fetched.stdout.contains("swift"), "\(fetched.stderr)")

        let missing = try cli.run(["store", "destroy", "posts.sqlite"])
        #expect(missing.status != 0 && missing.stderr.contains("no store at posts.sqlite"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let notAStore = try cli.run(["store", "destroy", "notes.txt"])
        #expect(notAStore.status != 0 && notAStore.stderr.contains("not a SQLite database"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("notes.txt").path))
    }
}
