import Foundation
import GRDB
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

@Suite("Mirroring under faults, through a real server", .serialized)
struct MirroringFaultTests {
    static func insertPosts(_ device: Device, _ count: Int, prefix: String = "post") async throws {
        try await device.edit { context in
            for index in 0..<count {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue("\(prefix) \(index)", forKey: "title")
            }
        }
    }

    static func titles(_ device: Device) async throws -> [String] {
        try await device.snapshot("Post", key: "title").keys.sorted()
    }

    @Test("a batch the server applied but whose answer was lost is sent again without duplicates")
    func answerLost() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await Self.insertPosts(a, 30)
        a.transport.inject(.modifyAnswerLost)
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        #expect(try a.container.syncStatus().first?.pendingUploads == 30)
        try await a.container.syncNow()
        try await b.container.syncNow()
        #expect(try await Self.titles(b).count == 30)
        let records = try await a.transport.base.fetchChanges(FetchZoneChangesRequest(), in: ZoneID(zoneName: CloudContainerOptions.defaultZoneName))
        #expect(records.records.count == 30)
    }

    @Test("every server error leaves the edits queued until the fault passes", arguments: [
        CloudError(.rateLimited, "slow down", retryAfter: 0.01),
        CloudError(.server, "serviceUnavailable"),
        CloudError(.quotaExceeded, "full"),
        CloudError(.notAuthenticated, "token revoked"),
        CloudError(.permissionFailure, "no"),
        CloudError(.network, "cut"),
    ])
    func serverErrors(_ error: CloudError) async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await Self.insertPosts(a, 5)
        a.transport.inject(.modifyFails(error))
        let events = a.container.events
        await #expect(throws: CloudError.self) { try await a.container.syncNow() }
        var iterator = events.makeAsyncIterator()
        var sawError = false
        while let event = await iterator.next() {
            if event.kind == .export, event.phase == .ended { sawError = event.error?.code == error.code; break }
        }
        #expect(sawError)
        #expect(try a.container.syncStatus().first?.lastError?.contains(error.message) == true)
        #expect(try a.container.syncStatus().first?.pendingUploads == 5)
        try await a.container.syncNow()
        try await b.container.syncNow()
        #expect(try await Self.titles(b).count == 5)
    }

    @Test("a fetch that fails leaves the token where it was; the next sync imports everything")
    func fetchFails() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await Self.insertPosts(a, 5)
        try await a.container.syncNow()
        b.transport.inject(.fetchFails(CloudError(.network, "cut")))
        await #expect(throws: CloudError.self) { try await b.container.syncNow() }
        #expect(try await Self.titles(b).isEmpty)
        try await b.container.syncNow()
        #expect(try await Self.titles(b).count == 5)
    }

    @Test("a batch over the server's limit is halved until it fits, and everything arrives")
    func halving() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await Self.insertPosts(a, 900)
        a.transport.refuseBatches(over: 60)
        let summary = try await a.container.syncNow()
        #expect(summary.exported == 900)
        #expect(a.transport.largestAcceptedBatch <= 60)
        try await b.container.syncNow()
        #expect(try await Self.titles(b).count == 900)
    }

    @Test("a history purge never passes the exporter")
    func purgeWaitsForExporter() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await a.container.syncNow()
        try await Self.insertPosts(a, 3)
        let context = a.container.newBackgroundContext()
        let refused = await #expect(throws: NimbusError.self) {
            try await context.perform { _ = try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: Date().addingTimeInterval(1))) }
        }
        #expect(refused?.code == .historyPurgeRefused)
        try await a.container.syncNow()
        try await context.perform { _ = try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: Date().addingTimeInterval(1))) }
        try await Self.insertPosts(a, 2, prefix: "after purge")
        try await a.container.syncNow()
        try await b.container.syncNow()
        #expect(try await Self.titles(b).count == 5)
    }

    @Test("an app version that does not know a field keeps it on the server")
    func unknownFieldsSurvive() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let newer = try ManagedObjectModel(configurations: ["Cloud": ["Post", "Tag", "Attachment"]]) {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("subtitle", .string)
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
                RelationshipDescription("attachments", to: "Attachment", inverse: "post", toMany: true)
            }
            EntityDescription("Tag") {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
            }
            EntityDescription("Attachment") {
                AttributeDescription("name", .string)
                RelationshipDescription("post", to: "Post", inverse: "attachments")
            }
        }
        let new = try Device(server: server, token: server.tokens[0], model: newer)
        let old = try Device(server: server, token: server.tokens[1], model: try SyncModel.make())
        try await new.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("v1", forKey: "title")
            post.setValue("only the new app knows", forKey: "subtitle")
        }
        try await new.container.syncNow()
        try await old.container.syncNow()
        try await old.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            post.setValue("v2 from the old app", forKey: "title")
        }
        try await old.container.syncNow()
        try await new.container.syncNow()
        let posts = try await new.snapshot("Post", key: "title")
        #expect(posts["v2 from the old app"]?["subtitle"] == "only the new app knows")
        let oldPostID = try #require(try old.fetchOneID("Post", "title == %@", "v2 from the old app"))
        let record = try #require(try old.container.record(for: oldPostID))
        #expect(record.fields["CD_subtitle"]?.value == .string("only the new app knows"))
    }

    @Test("a child inserted on one device while its parent is deleted on another is deleted everywhere (cascade)")
    func childOfDeletedParent() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await Self.insertPosts(a, 1)
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            let attachment = try context.insertNewObject(forEntityName: "Attachment")
            attachment.setValue("late", forKey: "name")
            attachment.setValue(post, forKey: "post")
        }
        try await b.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            context.delete(post)
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.container.syncNow()
        try await b.container.syncNow()
        for device in [a, b] {
            #expect(try await device.snapshot("Post", key: "title").isEmpty)
            #expect(try await device.snapshot("Attachment", key: "name").isEmpty)
            #expect(try device.container.syncStatus().first?.parkedRecords == 0)
        }
    }

    @Test("equal clock stamps resolve by device id, the same way on every device")
    func equalStamps() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await Self.insertPosts(a, 1)
        try await a.container.syncNow()
        try await b.container.syncNow()
        // Both clocks at the same reading: the next edits carry equal times.
        let future = (Int64(Date().timeIntervalSince1970 * 1000) + 60_000) << 16   // within the server's clock-skew bound
        for device in [a, b] {
            try DatabaseFile(device.folder.url.appendingPathComponent("Cloud.sqlite"))
                .execute("UPDATE ANIMBUSCLOUDSTATE SET ZVALUE = \(future) WHERE ZKEY = 'clock'")
        }
        for (device, title) in [(a, "from a"), (b, "from b")] {
            try await device.edit { context in
                let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
                post.setValue(title, forKey: "title")
            }
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await a.container.syncNow()
        let idA = try #require(try a.container.syncStatus().first?.deviceID)
        let idB = try #require(try b.container.syncStatus().first?.deviceID)
        let expected = idA > idB ? "from a" : "from b"
        #expect(try await Self.titles(a) == [expected])
        #expect(try await Self.titles(b) == [expected])
    }

    @Test("a custom resolver decides a conflict, and its choice wins on every device")
    func customResolver() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        for device in [a, b] {
            device.container.setConflictResolver(forEntity: "Post") { conflict in
                guard conflict.property == "views", case let .integer(local) = conflict.localValue,
                      case let .integer(remote) = conflict.remoteValue else { return .byStamp }
                return .merged(.integer(max(local, remote)))
            }
        }
        try await Self.insertPosts(a, 1)
        try await a.container.syncNow()
        try await b.container.syncNow()
        for (device, views) in [(a, 50), (b, 20)] {   // b edits later, but the larger count is kept
            try await device.edit { context in
                let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
                post.setValue(Int64(views), forKey: "views")
            }
        }
        try await b.container.syncNow()
        try await a.container.syncNow()
        try await b.container.syncNow()
        #expect(try await a.snapshot("Post", key: "title").values.first?["views"] == "50")
        #expect(try await b.snapshot("Post", key: "title").values.first?["views"] == "50")
    }

    @Test("a save on one device reaches the other device's viewContext by itself (push)")
    func automaticSync() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model, automatic: true)
        let b = try Device(server: server, token: server.tokens[1], model: model, automatic: true)
        let events = b.container.events
        try await Self.insertPosts(a, 1, prefix: "pushed")
        var iterator = events.makeAsyncIterator()
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, let event = await iterator.next() {
            if event.kind == .import, event.phase == .ended, event.recordCount > 0 { break }
        }
        let view = b.container.viewContext
        let seen = try await MainActor.run { try view.fetch(FetchRequest<ManagedObject>(entityName: "Post")).compactMap { $0.value(forKey: "title") as? String } }
        #expect(seen == ["pushed 0"])
        await a.container.stopSyncing()
        await b.container.stopSyncing()
    }

    @Test("a model that can't be mirrored is refused with every entity and reason, and the store stays usable")
    func unmirrorableModel() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("title", .string, isOptional: false)
                RelationshipDescription("folder", to: "Folder", inverse: nil)
            }
            EntityDescription("Folder") {
                AttributeDescription("name", .string)
            }
        }
        let folder = try TemporaryDirectory()
        let container = CloudContainer(name: "notes", managedObjectModel: model)
        container.automaticallySyncs = false
        var description = PersistentStoreDescription(url: folder.url.appendingPathComponent("Notes.sqlite"))
        description.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: "app", token: server.tokens[0])
        container.persistentStoreDescriptions = [description]
        let error = #expect(throws: CloudError.self) { try container.loadPersistentStores() }
        #expect(error?.code == .unmirrorableModel)
        #expect(error?.message.contains("Note.title") == true)
        #expect(error?.message.contains("Note.folder has no inverse") == true)
        let context = container.newBackgroundContext()
        try await context.perform {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue("still works", forKey: "title")
            try context.save()
        }
    }

    @Test("a server of another protocol version is refused clearly")
    func incompatibleServer() async throws {
        let folder = try TemporaryDirectory()
        try Data(#"{"status":"ok","storage":"sqlite","protocolVersion":99}"#.utf8).write(to: folder.url.appendingPathComponent("health"))
        let port = SyncServer.freePort()
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", folder.url.path]
        python.standardOutput = FileHandle.nullDevice
        python.standardError = FileHandle.nullDevice
        try python.run()
        defer { kill(python.processIdentifier, SIGKILL); python.waitUntilExit() }   // SIGTERM may be blocked in children of the test process
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: URL(string: "http://127.0.0.1:\(port)")!, containerIdentifier: "app", token: "t"))
        var last: CloudError?
        for _ in 0..<200 {
            do { try await transport.checkServer() } catch let error as CloudError {
                last = error
                if error.code == .incompatibleServer { break }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(last?.code == .incompatibleServer)
        #expect(last?.message.contains("version 99") == true)
    }
}

