import Foundation
import GRDB
import Testing

/// `nimbus store … --model` on a store Apple's Core Data wrote, and `store import-coredata`.
/// `../shared/fixtures/apple-stores` beside the checkout, or `NIMBUS_APPLE_FIXTURES`.
enum AppleFixtureFolder {
    static let url: URL? = {
        if let given = ProcessInfo.processInfo.environment["NIMBUS_APPLE_FIXTURES"], !given.isEmpty { return URL(fileURLWithPath: given) }
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = checkout.deletingLastPathComponent().appendingPathComponent("shared/fixtures/apple-stores")
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent("store2-92-0.sqlite").path) ? folder : nil
    }()
}

@Suite("nimbus store on Apple's stores", .enabled(if: AppleFixtureFolder.url != nil))
struct CoreDataStoreCommandTests {

    let folder: URL
    let cli: CLIRunner
    let store: String
    let model: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
        store = folder.appendingPathComponent("apple.sqlite").path
        try FileManager.default.copyItem(atPath: AppleFixtureFolder.url!.appendingPathComponent("store2-92-0.sqlite").path, toPath: store)
        model = AppleFixtureFolder.url!.appendingPathComponent("zmessaging.xcdatamodeld/zmessaging2.92.0.xcdatamodel").path
    }

    func rows(_ sql: String) throws -> Int {
        let queue = try DatabaseQueue(path: "file:\(store)?mode=ro&immutable=1")
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: sql)! }
    }

    @Test("inspect names Core Data's version, the entities and their counts; fetch reads with --model; the file is unchanged")
    func inspectAndFetch() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let refused = try cli.run(["store", "inspect", "apple.sqlite"])
        #expect(refused.status != 0 && refused.stderr.contains("--model"), "\(refused.stderr)")

        let inspect = try cli.run(["store", "inspect", "apple.sqlite", "--model", model, "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let info = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as! [String: Any]
        #expect(info["persistenceFrameworkVersion"] as? String == "1044")
        #expect((info["writtenBy"] as? String)?.contains("Core Data") == true)
        let entities = info["entities"] as! [[String: Any]]
        let user = try #require(entities.first { $0["name"] as? String == "User" })
        let userRows = try rows("SELECT count(*) FROM ZUSER"), messageRows = try rows("SELECT count(*) FROM ZMESSAGE")
        #expect("\(user)".contains("\(userRows)"), "\(user)")
        let text = try cli.run(["store", "inspect", "apple.sqlite", "--model", model])
        #expect(text.status == 0 && text.stdout.contains("Core Data (framework version 1044)"), "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("journal mode wal"), "\(text.stdout)")

        let fetch = try cli.run(["store", "fetch", "apple.sqlite", "User", "--model", model, "--json"])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let users = try JSONSerialization.jsonObject(with: Data(fetch.stdout.utf8)) as! [[String: Any]]
        #expect(users.count == userRows)
        let count = try cli.run(["store", "fetch", "apple.sqlite", "Message", "--model", model, "--count"])
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(messageRows)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        #expect(!FileManager.default.fileExists(atPath: store + "-wal") && !FileManager.default.fileExists(atPath: store + "-shm"))
    }

    @Test("import-coredata copies every object with a progress line; the copy opens without --model")
    func importCoreData() throws {
        let output = try cli.run(["store", "import-coredata", "apple.sqlite", "--model", model, "copy.sqlite", "--with-cloud-metadata", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("copied 1/") && output.stderr.contains("tables"), "\(output.stderr)")
        #expect(output.stderr.contains("ANSCK"), "\(output.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as! [String: Any]
        let total = try rows("SELECT count(*) FROM ZUSER") + rows("SELECT count(*) FROM ZMESSAGE") + rows("SELECT count(*) FROM ZCONVERSATION")
        #expect((summary["objects"] as? Int ?? 0) >= total && total > 0)
        let count = try cli.run(["store", "fetch", "copy.sqlite", "User", "--count"])
        let userRows = try rows("SELECT count(*) FROM ZUSER")
        #expect(count.status == 0 && count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(userRows)", "\(count.stderr)")
        let again = try cli.run(["store", "import-coredata", "apple.sqlite", "--model", model, "copy.sqlite"])
        #expect(again.status != 0 && again.stderr.contains("already exists"), "\(again.stderr)")
    }
}
