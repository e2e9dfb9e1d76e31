import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

/// A device away for longer than the server keeps tombstones, end to end against a real
/// server: told its change token expired, it reconciles with the zone, keeping its unsent
/// edits and dropping what others deleted; references to deleted objects are repaired on
/// every device.
@Suite("Long absence", .serialized)
struct LongAbsenceTests {
    static func post(_ device: Device, titled title: String) throws -> ManagedObjectID {
        try #require(try device.fetchOneID("Post", "title == %@", title))
    }

    @Test("a device back after the tombstone horizon keeps its unsent edits, drops what others deleted, and every replica agrees")
    func backAfterHorizon() async throws {
        let server = try await InProcessServer.start(devices: 3)
        let model = try SyncModel.make()
        let a = try Device(url: server.url, token: server.tokens[0], model: model, name: "a")
        let b = try Device(url: server.url, token: server.tokens[1], model: model, name: "b")
        do {
            try await a.edit { context in
                for title in ["kept", "deleted elsewhere", "edited here, deleted elsewhere"] {
                    let post = try context.insertNewObject(forEntityName: "Post")
                    post.setValue(title, forKey: "title")
                }
                for name in ["t", "made again"] {
                    let tag = try context.insertNewObject(forEntityName: "Tag")
                    tag.setValue(name, forKey: "name")
                }
            }
            try await a.container.syncNow()
            try await b.container.syncNow()
            #expect(try await b.snapshot("Post", key: "title").count == 3)

            // B goes away and edits: an object still there, a new one, one deleted meanwhile
            // elsewhere, and a new attachment of a post deleted meanwhile elsewhere.
            let kept = try Self.post(b, titled: "kept")
            let editedGone = try Self.post(b, titled: "edited here, deleted elsewhere")
            let gone = try Self.post(b, titled: "deleted elsewhere")
            try await b.edit { context in
                try context.existingObject(with: kept).setValue("edited while away", forKey: "body")
                try context.existingObject(with: editedGone).setValue("an edit of a deleted post", forKey: "body")
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue("written while away", forKey: "title")
                let note = try context.insertNewObject(forEntityName: "Attachment")
                note.setValue("note", forKey: "name")
                note.setValue(try context.existingObject(with: gone), forKey: "post")
                var request = FetchRequest<ManagedObject>(entityName: "Tag")
                request.predicate = try QueryPredicate(format: "name == %@", "t")
                let tag = try context.fetch(request).first!
                try tag.addObjects([try context.existingObject(with: gone), try context.existingObject(with: kept)], toRelationship: "posts")
            }
            // Meanwhile A deletes two posts and writes one, and deletes a tag and makes it
            // again (a unique key: its record takes the key's next name); the server then
            // purges the tombstones.
            let aGone = try Self.post(a, titled: "deleted elsewhere")
            let aEditedGone = try Self.post(a, titled: "edited here, deleted elsewhere")
            try await a.edit { context in
                context.delete(try context.existingObject(with: aGone))
                context.delete(try context.existingObject(with: aEditedGone))
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue("written by A meanwhile", forKey: "title")
                var request = FetchRequest<ManagedObject>(entityName: "Tag")
                request.predicate = try QueryPredicate(format: "name == %@", "made again")
                context.delete(try context.fetch(request).first!)
            }
            try await a.container.syncNow()
            try await a.insertTag("made again")
            try await a.container.syncNow()
            #expect(try await server.purgeTombstones() == 3)

            // B comes back: told its token expired (410), it reconciles.
            #expect(server.responses(status: 410) == 0)
            try await b.container.syncNow()
            #expect(server.responses(status: 410) == 1)
            try await a.container.syncNow()
            try await b.container.syncNow()
            let c = try Device(url: server.url, token: server.tokens[2], model: model, name: "c")
            try await c.container.syncNow()

            let expected = ["kept", "written by A meanwhile", "written while away"]
            for device in [a, b, c] {
                let posts = try await device.snapshot("Post", key: "title")
                #expect(posts.keys.sorted() == expected)
                #expect(posts["kept"]?["body"] == "edited while away")
                #expect(try await device.snapshot("Attachment", key: "name").isEmpty)
                let tags = try await device.snapshot("Tag", key: "name")
                #expect(tags.keys.sorted() == ["made again", "t"])
                #expect(tags["t"]?["posts"] == "kept")
                let context = device.container.newBackgroundContext()
                let count = try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) }
                #expect(count == 2)
            }
            #expect(try await a.snapshot("Post", key: "title") == (try await b.snapshot("Post", key: "title")))
            #expect(try await c.snapshot("Post", key: "title") == (try await b.snapshot("Post", key: "title")))
            for device in [a, b, c] { #expect(try device.container.quarantinedRecords().isEmpty) }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
