import Foundation
import Nimbus
@testable import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

@Suite("Sync through a shared folder")
struct FolderSyncTests {
    @Test("two devices converge through one folder: inserts, edits of different fields, relationships")
    func twoDevices() async throws {
        let (shared, devices) = try FolderDevices.onOneFolder(2)
        let (a, b) = (devices[0], devices[1])
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("Hello", forKey: "title")
            post.setValue("first body", forKey: "body")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("swift", forKey: "name")
            post.setValue(Set([tag]), forKey: "tags")
            let attachment = try context.insertNewObject(forEntityName: "Attachment")
            attachment.setValue("note.txt", forKey: "name")
            attachment.setValue(post, forKey: "post")
        }
        try await a.container.syncNow()
        let summary = try await b.container.syncNow()
        #expect(summary.imported > 0)
        let onB = try await b.posts()
        #expect(onB["Hello"]?["body"] == "first body")
        #expect(onB["Hello"]?["tags"] == "swift")
        #expect(onB["Hello"]?["attachments"] == "note.txt")
        // Different fields edited on each device: both edits survive everywhere.
        try await a.edit { context in
            let post = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first!
            post.setValue(41, forKey: "views")
        }
        try await b.edit { context in
            let post = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first!
            post.setValue("edited on b", forKey: "body")
        }
        for device in [a, b, a, b] { try await device.container.syncNow() }
        let (finalA, finalB) = (try await a.posts(), try await b.posts())
        #expect(finalA == finalB)
        #expect(finalA["Hello"]?["body"] == "edited on b")
        #expect(finalA["Hello"]?["views"] == "41")
        // Every device wrote only under its own peer folder.
        let peers = try FileManager.default.contentsOfDirectory(atPath: shared.url.appendingPathComponent("peers").path)
        #expect(peers.count == 2)
    }

    @Test("three devices: the same unique tag made on each converges on one; a deletion wins over a concurrent edit")
    func threeDevices() async throws {
        let (shared, devices) = try FolderDevices.onOneFolder(3)
        defer { withExtendedLifetime(shared) {} }
        for device in devices { try await device.insertTag("swift") }
        try await devices[0].edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("doomed", forKey: "title")
        }
        for device in devices + devices { try await device.container.syncNow() }
        for device in devices {
            #expect(try await device.snapshot("Tag", key: "name").keys.sorted() == ["swift"])
            #expect(try await device.posts().keys.sorted() == ["doomed"])
        }
        // Device 1 deletes the post while device 2 edits it: deletion wins everywhere.
        try await devices[1].edit { context in
            for post in try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")) { context.delete(post) }
        }
        try await devices[2].edit { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first!.setValue("edited", forKey: "body")
        }
        try await devices[2].container.syncNow()
        for device in devices + devices { try await device.container.syncNow() }
        for device in devices { #expect(try await device.posts().isEmpty) }
    }

    @Test("a large value travels as an asset file of the folder")
    func assets() async throws {
        let (shared, devices) = try FolderDevices.onOneFolder(2)
        let bytes = Data((0..<900_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await devices[0].edit { context in
            let attachment = try context.insertNewObject(forEntityName: "Attachment")
            attachment.setValue("big", forKey: "name")
            attachment.setValue(bytes, forKey: "data")
        }
        try await devices[0].container.syncNow()
        let assets = try FileManager.default.contentsOfDirectory(atPath: shared.url.appendingPathComponent("assets").path)
        #expect(assets.count == 1)
        try await devices[1].container.syncNow()
        let context = devices[1].container.newBackgroundContext()
        let data = try await context.perform {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Attachment")).first?.value(forKey: "data") as? Data
        }
        #expect(data == bytes)
    }
}

extension FolderSyncTests {
    @Test("a device that syncs by itself notices another device's logs by polling the folder")
    func polling() async throws {
        let shared = try TemporaryDirectory()
        let model = try SyncModel.make()
        let a = try FolderDevices.device(shared.url, model: model, name: "a")
        let b = try FolderDevices.device(shared.url, model: model, name: "b", automatic: true, pollInterval: 0.1)
        defer { Task { await b.container.stopSyncing() } }
        try await a.insertTag("polled")
        try await a.container.syncNow()
        var tags: [String] = []
        for _ in 0..<600 where tags.isEmpty {
            tags = try await b.snapshot("Tag", key: "name").keys.sorted()
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(tags == ["polled"])
    }

    @Test("a log removed by its writer's compaction while it is read is skipped, not an error")
    func vanishedWhileRead() async throws {
        let (shared, devices) = try FolderDevices.onOneFolder(1)
        try await devices[0].insertTag("swift")
        try await devices[0].container.syncNow()
        let index = try FolderIndex(url: shared.url.deletingLastPathComponent().appendingPathComponent("other-\(UUID().uuidString).sqlite"))
        let root = shared.url
        let report = try await index.queue.write { db in
            var importer = FolderImport(index: index, layout: FolderLayout(root: root), key: nil)
            importer.read = { url in
                try? FileManager.default.removeItem(at: url)   // compacted between the listing and the read
                return FolderLayout.read(url)
            }
            return try importer.run(db)
        }
        #expect(report.vanished == 1)
        #expect(report.imported == 0)
    }
}

extension FolderSyncTests {
    @Test("erasing the folder's content reaches every device; what is made after it survives, and a new device sees only that")
    func erase() async throws {
        let (shared, devices) = try FolderDevices.onOneFolder(2)
        let (a, b) = (devices[0], devices[1])
        try await a.insertTag("old")
        try await a.container.syncNow()
        try await b.container.syncNow()
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["old"])
        try await a.container.eraseCloudContent()
        #expect(try await a.snapshot("Tag", key: "name").isEmpty)
        try await b.container.syncNow()
        #expect(try await b.snapshot("Tag", key: "name").isEmpty)
        try await b.insertTag("new")
        try await b.insertTag("old")
        try await b.container.syncNow()
        try await a.container.syncNow()
        #expect(try await a.snapshot("Tag", key: "name").keys.sorted() == ["new", "old"])
        let c = try FolderDevices.device(shared.url, model: try SyncModel.make(), name: "c")
        try await c.container.syncNow()
        #expect(try await c.snapshot("Tag", key: "name").keys.sorted() == ["new", "old"])
    }
}
