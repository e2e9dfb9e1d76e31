import Foundation
import Nimbus
import NimbusCloud
import NimbusWire
import Testing

@Suite("Mirroring through a real server", .serialized)
struct MirroringTests {
    @Test("objects, to-one and many-to-many relationships and large values reach the other device")
    func roundTrip() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let phone = try Device(server: server, token: server.tokens[0], model: model)
        let laptop = try Device(server: server, token: server.tokens[1], model: model)
        let image = Data((0..<(2 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await phone.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("Hello", forKey: "title")
            post.setValue("from the phone", forKey: "body")
            let swift = try context.insertNewObject(forEntityName: "Tag")
            swift.setValue("swift", forKey: "name")
            try post.addObjects([swift], toRelationship: "tags")
            let attachment = try context.insertNewObject(forEntityName: "Attachment")
            attachment.setValue("photo", forKey: "name")
            attachment.setValue(image, forKey: "data")
            attachment.setValue(post, forKey: "post")
            let location = try context.insertNewObject(forEntityName: "Location")
            location.setValue(48.85, forKey: "latitude")
        }
        let sent = try await phone.container.syncNow()
        #expect(sent.exported == 4)   // post, tag, attachment, and the post–tag membership
        let received = try await laptop.container.syncNow()
        #expect(received.imported >= 3)
        let posts = try await laptop.snapshot("Post", key: "title")
        #expect(posts["Hello"]?["body"] == "from the phone")
        #expect(posts["Hello"]?["tags"] == "swift")
        #expect(posts["Hello"]?["attachments"] == "photo")
        let attachments = try await laptop.snapshot("Attachment", key: "name")
        #expect(attachments["photo"]?["data"] == "\(image.count) bytes")
        #expect(try await laptop.snapshot("Location", key: "latitude").isEmpty)   // Local never leaves the device
        #expect(try await phone.snapshot("Post", key: "title") == posts)
    }

    @Test("two devices editing different fields of one object both keep their edit; the same field converges")
    func fieldMerge() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("draft", forKey: "title")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            post.setValue("A's title", forKey: "title")
            post.setValue(Int64(7), forKey: "views")
        }
        try await b.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            post.setValue("B's body", forKey: "body")
            post.setValue(Int64(9), forKey: "views")
        }
        // The later stamp wins everywhere, whatever order the devices sync in. (B edited later,
        // but both edits may fall in one millisecond; then the stamps tie on time and the
        // greater device id decides, as on every replica.)
        try await b.container.syncNow()
        try await a.container.syncNow()
        try await b.container.syncNow()
        let onA = try await a.snapshot("Post", key: "title")
        let onB = try await b.snapshot("Post", key: "title")
        #expect(onA == onB)
        #expect(onA["A's title"]?["body"] == "B's body")
        let post = try #require(try a.fetchOneID("Post", "title == %@", "A's title"))
        let stamp = try #require(try a.container.record(for: post)?.fields["CD_views"]?.stamp)
        let idB = try #require(try b.container.syncStatus().first?.deviceID)
        #expect(onA["A's title"]?["views"] == (stamp.device == idB ? "9" : "7"))
    }

    @Test("delete beats update, and a cascade on one device reaches the other")
    func deleteWins() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("doomed", forKey: "title")
            let attachment = try context.insertNewObject(forEntityName: "Attachment")
            attachment.setValue("file", forKey: "name")
            attachment.setValue(post, forKey: "post")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            context.delete(post)
        }
        try await b.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            post.setValue("edited after", forKey: "title")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.container.syncNow()
        #expect(try await a.snapshot("Post", key: "title").isEmpty)
        #expect(try await b.snapshot("Post", key: "title").isEmpty)
        #expect(try await b.snapshot("Attachment", key: "name").isEmpty)
    }

    @Test("two devices creating a tag with the same unique name end with one")
    func uniqueKeys() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        for device in [a, b] {
            try await device.edit { context in
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue("linux", forKey: "name")
            }
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.container.syncNow()
        #expect(try await a.snapshot("Tag", key: "name").count == 1)
        #expect(try await b.snapshot("Tag", key: "name").count == 1)
    }

    @Test("a page applied twice changes nothing, and importing again after a lost token is idempotent")
    func idempotentImport() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await a.edit { context in
            for index in 0..<5 {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue("post \(index)", forKey: "title")
            }
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        let before = try await b.snapshot("Post", key: "title")
        // Forget the zone token: the whole zone arrives again.
        let store = try #require(b.container.persistentStoreCoordinator.persistentStores.first { $0.configurationName == "Cloud" })
        let queue = try DatabaseFile(store.url!)
        try queue.execute("DELETE FROM ANIMBUSCLOUDSTATE WHERE ZKEY = 'zoneToken'")
        try await b.container.syncNow()
        #expect(try await b.snapshot("Post", key: "title") == before)
        #expect(before.count == 5)
    }
}

@Suite("Unique keys after a deletion", .serialized)
struct UniqueKeyGenerationTests {
    @Test("a unique key deleted on one device and made again on another that never saw the deletion exists once everywhere")
    func recreatedAfterDeletion() async throws {
        let server = try await SyncServer(devices: 3)
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        let c = try Device(server: server, token: server.tokens[2], model: model)
        try await a.edit { context in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("swift", forKey: "name")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.edit { context in
            for tag in try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) { context.delete(tag) }
        }
        try await a.container.syncNow()
        // c never synced: its "swift" is named like the deleted record, which the server refuses.
        try await c.edit { context in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("swift", forKey: "name")
        }
        for device in [c, b, a, c] { try await device.container.syncNow() }
        for device in [a, b, c] {
            #expect(try await device.snapshot("Tag", key: "name").keys.sorted() == ["swift"])
            #expect(try device.container.syncStatus().first?.pendingUploads == 0)
        }
    }
}
