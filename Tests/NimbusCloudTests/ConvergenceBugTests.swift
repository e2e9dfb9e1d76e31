import Foundation
import Nimbus
import NimbusCloud
import NimbusWire
import Testing

/// Bugs the convergence test found (issue 11), each reduced to a small deterministic case.
@Suite("Convergence bugs, reduced", .serialized)
struct ConvergenceBugTests {
    /// Seeds 103 and 126: a device inserts an object, its first export never reaches the
    /// server (the record name is already written), then it deletes the object. The server
    /// answers the deletion `unknownItem` (it never had the record), and the deletion stayed
    /// queued forever: `device sync` failed on every run with "1 change(s) are still pending".
    @Test("deleting an object whose record never reached the server settles the deletion")
    func deletionOfUnsentRecord() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let a = try Device(server: server, token: server.tokens[0], model: try SyncModel.make())
        try await MirroringFaultTests.insertPosts(a, 1)
        a.transport.inject(.modifyFails(CloudError(.network, "test: the first export is lost")))
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        try await a.edit { context in
            for post in try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")) { context.delete(post) }
        }
        try await a.container.syncNow()
        #expect(try a.container.syncStatus().first?.pendingUploads == 0)
    }

    /// Seed 1012 (session 6): a device makes tag "t2", its export is lost, and it deletes the
    /// tag; the deletion of a record the server never had is settled (bug 1), but the device
    /// still remembered the record name as deleted. Another device then made a tag "t2", which
    /// the server stores under that same name (nothing was ever deleted there); the first
    /// device ignored it as a record it had deleted, and the replicas differed for good. Now a
    /// deletion the server answers "no such record" forgets the name.
    @Test("a tag made elsewhere under the name of a deletion the server never saw reaches the deleting device")
    func uniqueKeyAfterUnsentDeletion() async throws {
        let (server, devices) = try await Device.onOneServer(2)
        defer { server.stop() }
        let (a, b) = (devices[0], devices[1])
        try await a.insertTag("t2")
        a.transport.inject(.modifyFails(CloudError(.network, "test: the first export is lost")))
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        try await a.deleteAllTags()
        try await a.container.syncNow()
        #expect(try a.container.syncStatus().first?.pendingUploads == 0)
        try await b.insertTag("t2")
        try await b.container.syncNow()
        try await a.container.syncNow()
        #expect(try await a.snapshot("Tag", key: "name").keys.sorted() == ["t2"])
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["t2"])
    }

    /// Seed 117: a device deletes a tag (unique name, so its record name comes from the
    /// name), and makes a tag of the same name before the deletion is exported. The batch then
    /// held a save and a deletion of one record, the server refused it whole
    /// (`invalidArguments`: "appears more than once in the batch"), and the device never synced
    /// again. Now the deletion of the first tag and the save of the second (the key's next
    /// generation of record name) both go out: the new tag exists everywhere, in step.
    @Test("a unique-keyed object deleted and made again before export does not wedge the device")
    func deleteThenRecreateUniqueKey() async throws {
        let (server, devices) = try await Device.onOneServer(2)
        defer { server.stop() }
        let (a, b) = (devices[0], devices[1])
        try await a.insertTag("swift")
        try await a.container.syncNow()
        try await a.deleteAllTags()
        try await a.insertTag("swift")
        try await a.container.syncNow()
        try await a.container.syncNow()
        #expect(try a.container.syncStatus().first?.pendingUploads == 0)
        try await b.container.syncNow()
        #expect(try await a.snapshot("Tag", key: "name").keys.sorted() == ["swift"])
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["swift"])
    }

    /// Seed 510: a device makes a tag whose unique name another device's tag already holds,
    /// and links a post to it; meanwhile a third device deletes that tag. The tag's save meets
    /// the deleted record's tombstone and goes again under the key's next generation of record
    /// name, but the membership, saved in the same batch under the tag's old name, counted as
    /// sent: the other devices got a membership of a deleted tag, and the link stayed on that
    /// device alone. Now a membership whose end moves to a new name goes again under it.
    @Test("a link to a unique-keyed object that moves to its key's next generation is sent again, not dropped")
    func linkToRenamedUniqueObject() async throws {
        let (server, devices) = try await Device.onOneServer(3)
        defer { server.stop() }
        let (a, b, c) = (devices[0], devices[1], devices[2])
        try await a.insertTag("t2")
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await b.deleteAllTags()
        try await b.container.syncNow()
        // C has not synced yet: its tag takes the name the deleted one had.
        try await c.edit { context in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("t2", forKey: "name")
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("p1", forKey: "title")
            try post.addObjects([tag], toRelationship: "tags")
        }
        try await c.container.syncNow()
        try await c.container.syncNow()
        #expect(try c.container.syncStatus().first?.pendingUploads == 0)
        try await a.container.syncNow()
        try await b.container.syncNow()
        for device in [a, b, c] {
            #expect(try await device.snapshot("Post", key: "title")["p1"]?["tags"] == "t2")
            #expect(try await device.snapshot("Tag", key: "name")["t2"]?["posts"] == "p1")
        }
    }

    /// Seed 578: a device makes a tag (unique name, so its record name comes from the name)
    /// and links a post to it; its first export reaches the server but the answer is lost.
    /// Another device imports the tag and deletes it. The first device sends the tag again,
    /// meets the tombstone, and took it for another device's deleted tag of the same name: its
    /// tag moved to the key's next generation and came back everywhere. Now a save sent before
    /// that meets a tombstone this device created loses to the deletion.
    @Test("a unique-keyed object whose first save's answer was lost, then deleted elsewhere, stays deleted")
    func ownFirstSaveDeletedElsewhere() async throws {
        let (server, devices) = try await Device.onOneServer(2)
        defer { server.stop() }
        let (a, b) = (devices[0], devices[1])
        try await a.edit { context in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue("t0", forKey: "name")
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("p1", forKey: "title")
            try post.addObjects([tag], toRelationship: "tags")
        }
        a.transport.inject(.modifyAnswerLost)
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        try await b.container.syncNow()
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["t0"])
        try await b.deleteAllTags()
        try await b.container.syncNow()
        try await a.container.syncNow()
        try await a.container.syncNow()
        #expect(try a.container.syncStatus().first?.pendingUploads == 0)
        try await b.container.syncNow()
        for device in [a, b] {
            #expect(try await device.snapshot("Tag", key: "name").isEmpty)
            #expect(try await device.snapshot("Post", key: "title")["p1"]?["tags"] == "")
        }
    }

    /// The other side of the same rule: a tag made on a device whose first save never reached
    /// the server, while another device's tag of the same name was deleted, is a new tag. It
    /// takes the key's next generation and exists everywhere.
    @Test("a unique-keyed object whose first save never arrived, meeting another device's deleted record, is kept")
    func lostFirstSaveMeetsOthersTombstone() async throws {
        let (server, devices) = try await Device.onOneServer(2)
        defer { server.stop() }
        let (a, b) = (devices[0], devices[1])
        try await b.insertTag("t0")
        try await b.container.syncNow()
        try await b.deleteAllTags()
        try await b.container.syncNow()
        try await a.insertTag("t0")
        a.transport.inject(.modifyFails(CloudError(.network, "test: the first export never arrives")))
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        try await a.container.syncNow()
        try await a.container.syncNow()
        #expect(try a.container.syncStatus().first?.pendingUploads == 0)
        try await b.container.syncNow()
        for device in [a, b] {
            #expect(try await device.snapshot("Tag", key: "name").keys.sorted() == ["t0"])
        }
    }
    /// Seeds 568, 574, 604: a device links a post to a tag (unique name) and sends the
    /// membership; elsewhere the tag is deleted and a tag of the same name made again (the
    /// key's next generation of record name). When the first device imports that, its tag is
    /// matched to the new record and keeps the link, but the membership had been sent under
    /// the deleted record's name, which no other device resolves: the link stayed on that
    /// device alone. Now the memberships of a matched object go again under its new name.
    @Test("a link to a tag that another device deleted and made again under the same name reaches every device")
    func linkToRecreatedUniqueObject() async throws {
        let (server, devices) = try await Device.onOneServer(3)
        defer { server.stop() }
        let (a, b, c) = (devices[0], devices[1], devices[2])
        try await a.insertTag("t2")
        try await a.container.syncNow()
        try await c.container.syncNow()
        try await c.edit { context in
            let tag = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).first)
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("p1", forKey: "title")
            try post.addObjects([tag], toRelationship: "tags")
        }
        try await c.container.syncNow()
        try await a.deleteAllTags()
        try await a.insertTag("t2")
        try await a.container.syncNow()
        try await c.container.syncNow()
        try await c.container.syncNow()
        #expect(try c.container.syncStatus().first?.pendingUploads == 0)
        try await a.container.syncNow()
        try await b.container.syncNow()
        let posts = try await [a, b, c].asyncMap { try await $0.snapshot("Post", key: "title")["p1"]?["tags"] }
        #expect(Set(posts).count == 1, "the replicas differ: \(posts)")
        let tags = try await [a, b, c].asyncMap { try await $0.snapshot("Tag", key: "name")["t2"]?["posts"] }
        #expect(Set(tags).count == 1, "the replicas differ: \(tags)")
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
