import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

/// What apps live through over their life, end to end against a real server: model
/// upgrades while other devices stay on the older model, records a device can't apply,
/// unique keys that change, values JSON can't write, a full quota.
@Suite("Sync survives an app's whole life", .serialized)
struct AppLifeTests {
    @Test("a model upgrade that renumbers every entity keeps syncing; v1 keeps what it can't apply and applies it after its upgrade")
    func modelUpgrade() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let (v1, v2) = (try LifeModels.v1(), try LifeModels.v2())
        let (folderA, folderB) = (try TemporaryDirectory(), try TemporaryDirectory())
        var a = try LifeModels.device(server, token: server.tokens[0], model: v1, folder: folderA)
        var b = try LifeModels.device(server, token: server.tokens[1], model: v1, folder: folderB)
        try await a.edit { context in
            for (title, tag) in [("first", "swift"), ("second", "linux")] {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue(title, forKey: "title")
                let label = try context.insertNewObject(forEntityName: "Tag")
                label.setValue(tag, forKey: "name")
                try post.addObjects([label], toRelationship: "tags")
            }
        }
        try await a.container.syncNow()
        try await b.container.syncNow()

        // A edits, and before it syncs, the app updates: v2 adds an entity that sorts first.
        try await a.edit { context in
            let post = try #require(try context.fetch(Self.posts("title == 'second'")).first)
            post.setValue("second, edited before the upgrade", forKey: "title")
        }
        try a.close()
        a = try LifeModels.device(server, token: server.tokens[0], model: v2, folder: folderA)
        try await a.container.syncNow()
        try await b.container.syncNow()
        let onB = try await b.snapshot("Post", key: "title")
        #expect(onB.keys.sorted() == ["first", "second, edited before the upgrade"], "the edit went out under its own record: \(onB)")
        #expect(onB["second, edited before the upgrade"]?["tags"] == "linux")

        // A (v2) uses what v2 added; B, still on v1, goes on syncing.
        try await a.edit { context in
            let post = try #require(try context.fetch(Self.posts("title == 'first'")).first)
            post.setValue(Int64(3), forKey: "mood")
            let album = try context.insertNewObject(forEntityName: "Album")
            album.setValue("Trip", forKey: "name")
            try album.addObjects([post], toRelationship: "posts")
        }
        try await a.container.syncNow()
        let received = try await b.container.syncNow()
        #expect(received.imported >= 1)
        let keptOnB = try b.container.quarantinedRecords()
        #expect(keptOnB.contains { $0.recordType == "CD_Album" && $0.reason.contains("Album") }, "\(keptOnB)")
        #expect(keptOnB.contains { $0.recordType == "CDMR" }, "\(keptOnB)")
        // B edits the post v1 knows; the field it doesn't know survives on the server.
        try await b.edit { context in
            let post = try #require(try context.fetch(Self.posts("title == 'first'")).first)
            post.setValue("first, edited on v1", forKey: "title")
        }
        try await b.container.syncNow()
        try await a.container.syncNow()
        let postsOnA = try await a.snapshot("Post", key: "title")
        #expect(postsOnA["first, edited on v1"]?["mood"] == "3")
        #expect(postsOnA["first, edited on v1"]?["albums"] == "Trip")

        // B updates: what it kept is applied, and the replicas agree.
        try b.close()
        b = try LifeModels.device(server, token: server.tokens[1], model: v2, folder: folderB)
        try await b.container.syncNow()
        #expect(try await b.snapshot("Post", key: "title") == postsOnA)
        #expect(try await b.snapshot("Album", key: "name") == (try await a.snapshot("Album", key: "name")))
        #expect(try await b.snapshot("Tag", key: "name") == (try await a.snapshot("Tag", key: "name")))
        #expect(try b.container.quarantinedRecords().isEmpty)
        #expect(try b.container.syncStatus().first?.pendingUploads == 0)
    }

    @Test("records a device can't apply are set aside one by one; the rest of the page applies and sync goes on")
    func quarantine() async throws {
        let server = try await SyncServer(devices: 3)
        defer { server.stop() }
        let model = try LifeModels.v1()
        let folder = try TemporaryDirectory()
        let device = try LifeModels.device(server, token: server.tokens[0], model: model, folder: folder)
        try await device.container.syncNow()
        // Another app (or a buggy version) writes through the server's API.
        let other = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: "life", token: server.tokens[2]))
        let zone = ZoneID(zoneName: CloudContainerOptions.defaultZoneName)
        let stamp = HLCStamp(time: Int64(Date().timeIntervalSince1970 * 1000) << 16, device: "other-app")
        func record(_ name: String, _ type: String, _ fields: [String: FieldValue]) -> Record {
            Record(recordName: name, recordType: type, fields: fields.mapValues { Field($0, stamp: stamp) })
        }
        let bad: [Record] = [
            record("wrong-type", "CD_Post", ["CD_entityName": .string("Post"), "CD_title": .string("mood as text"), "CD_views": .string("lots")]),
            record("unknown-entity", "CD_Gadget", ["CD_entityName": .string("Gadget"), "CD_name": .string("gizmo")]),
            record("unknown-link", "CDMR", ["CD_relationshipKey": .string("Gadget.posts|Post.gadgets"), "CD_linked": .bool(true),
                                            "CD_recordNames": .list([.string("unknown-entity"), .string("good")])]),
            record("wrong-record-type", "CD_Tag", ["CD_entityName": .string("Post"), "CD_title": .string("typed as a tag")]),
            record("bad-reference", "CD_Note", ["CD_entityName": .string("Note"), "CD_post": .int64(7)]),
        ]
        let good = record("good", "CD_Post", ["CD_entityName": .string("Post"), "CD_title": .string("arrives anyway"), "CD_rating": .double(4.5)])
        _ = try await other.modify(ModifyRecordsRequest(saves: bad + [good], savePolicy: .allKeys), in: zone)

        let summary = try await device.container.syncNow()
        #expect(summary.imported == 1)
        let posts = try await device.snapshot("Post", key: "title")
        #expect(posts.keys.sorted() == ["arrives anyway"])
        let kept = try device.container.quarantinedRecords()
        #expect(Set(kept.map(\.recordName)) == Set(bad.map(\.recordName)), "\(kept)")
        #expect(kept.first { $0.recordName == "wrong-type" }?.reason.contains("CD_views") == true)
        #expect(try device.container.syncStatus().first?.quarantined.count == bad.count)

        // Later pages arrive; a corrected version of a set-aside record applies and leaves quarantine.
        let later = HLCStamp(time: stamp.time + (1000 << 16), device: "other-app")
        var fixed = record("wrong-type", "CD_Post", [:])
        fixed.fields["CD_views"] = Field(.int64(12), stamp: later)
        let next = record("after", "CD_Post", ["CD_entityName": .string("Post"), "CD_title": .string("a later page")])
        _ = try await other.modify(ModifyRecordsRequest(saves: [fixed, next], savePolicy: .changedKeys), in: zone)
        try await device.container.syncNow()
        let now = try await device.snapshot("Post", key: "title")
        #expect(now["mood as text"]?["views"] == "12")
        #expect(now["a later page"] != nil)
        #expect(try !device.container.quarantinedRecords().contains { $0.recordName == "wrong-type" })
        // The device's own edits still go out.
        try await device.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("mine", forKey: "title")
        }
        #expect(try await device.container.syncNow().exported == 1)
    }

    @Test("a unique key edited and made again, and one renamed into a key made elsewhere, converge without stopping sync")
    func uniqueKeys() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let model = try LifeModels.v1()
        let (folderA, folderB) = (try TemporaryDirectory(), try TemporaryDirectory())
        let a = try LifeModels.device(server, token: server.tokens[0], model: model, folder: folderA)
        let b = try LifeModels.device(server, token: server.tokens[1], model: model, folder: folderB)
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("tagged", forKey: "title")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("x", forKey: "name")
            tag.setValue("red", forKey: "color")
            try post.addObjects([tag], toRelationship: "tags")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()

        // A renames x → y and makes a new x in one save.
        try await a.edit { context in
            let tag = try #require(try context.fetch(Self.tags("name == 'x'")).first)
            tag.setValue("y", forKey: "name")
            let again = try context.insertNewObject(forEntityName: "Tag")
            again.setValue("x", forKey: "name")
            again.setValue("blue", forKey: "color")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        let tagsOnA = try await a.snapshot("Tag", key: "name")
        #expect(tagsOnA.keys.sorted() == ["x", "y"])
        #expect(tagsOnA["y"]?["posts"] == "tagged")
        #expect(try await b.snapshot("Tag", key: "name") == tagsOnA)

        // A renames y → z while B, not yet told, makes its own z.
        try await a.edit { context in
            let tag = try #require(try context.fetch(Self.tags("name == 'y'")).first)
            tag.setValue("z", forKey: "name")
        }
        try await b.edit { context in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("z", forKey: "name")
            tag.setValue("green", forKey: "color")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.container.syncNow()
        try await b.container.syncNow()
        let onA = try await a.snapshot("Tag", key: "name")
        let onB = try await b.snapshot("Tag", key: "name")
        #expect(onA == onB)
        #expect(onA.keys.sorted() == ["x", "z"])
        #expect(onA["z"]?["posts"] == "tagged", "the renamed tag's post stays with the key: \(onA)")
        #expect(try a.container.quarantinedRecords().isEmpty && b.container.quarantinedRecords().isEmpty)
        #expect(try await a.snapshot("Post", key: "title") == (try await b.snapshot("Post", key: "title")))
    }

    @Test("infinities travel to the other device exactly; NaN, which SQLite can't keep, is refused at save with a typed error")
    func nonFiniteValues() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let model = try LifeModels.v1()
        let (folderA, folderB) = (try TemporaryDirectory(), try TemporaryDirectory())
        let a = try LifeModels.device(server, token: server.tokens[0], model: model, folder: folderA)
        let b = try LifeModels.device(server, token: server.tokens[1], model: model, folder: folderB)
        try await a.edit { context in
            for (title, rating) in [("up", Double.infinity), ("down", -Double.infinity), ("plain", 2.5)] {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue(title, forKey: "title")
                post.setValue(rating, forKey: "rating")
            }
        }
        #expect(try await a.container.syncNow().exported == 3)
        try await b.container.syncNow()
        let posts = try await b.snapshot("Post", key: "title")
        #expect(posts["up"]?["rating"] == "inf")
        #expect(posts["down"]?["rating"] == "-inf")
        #expect(posts["plain"]?["rating"] == "2.5")
        // NaN: refused, nothing saved, sync unaffected.
        await #expect { try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("unknown", forKey: "title")
            post.setValue(Double.nan, forKey: "rating")
        } } throws: { ($0 as? NimbusError)?.code == .validationFailed && "\($0)".contains("NaN") }
        #expect(try await a.container.syncNow().exported == 0)
        #expect(try await a.snapshot("Post", key: "title")["unknown"] == nil)
    }

    @Test("a device over its quota still receives what others send")
    func overQuota() async throws {
        let server = try await SyncServer(devices: 2, quotaBytes: 64 * 1024)
        defer { server.stop() }
        let model = try LifeModels.v1()
        let (folderA, folderB) = (try TemporaryDirectory(), try TemporaryDirectory())
        let a = try LifeModels.device(server, token: server.tokens[0], model: model, folder: folderA)
        let b = try LifeModels.device(server, token: server.tokens[1], model: model, folder: folderB)
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("shared", forKey: "title")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        // A writes more than the quota holds; B makes a small edit.
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("too big", forKey: "title")
            post.setValue(String(repeating: "x", count: 200 * 1024), forKey: "body")
        }
        try await b.edit { context in
            let post = try #require(try context.fetch(Self.posts("title == 'shared'")).first)
            post.setValue("shared, edited on B", forKey: "title")
        }
        try await b.container.syncNow()
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        let onA = try await a.snapshot("Post", key: "title")
        #expect(onA["shared, edited on B"] != nil, "the import ran although the export was refused: \(onA.keys)")
        #expect(onA["too big"] != nil)
        #expect(try a.container.syncStatus().first?.pendingUploads == 1)
    }

    static func posts(_ format: String) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Post")
        request.predicate = try QueryPredicate(format: format)
        return request
    }

    static func tags(_ format: String) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Tag")
        request.predicate = try QueryPredicate(format: format)
        return request
    }
}
