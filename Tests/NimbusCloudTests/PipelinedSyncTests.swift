import Foundation
import GRDB
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Synchronization
import Testing

/// Sync at the speed of the store (issue 29): a download asks for the server's largest pages
/// and for the next page while it applies the one before; an upload sends its next batch
/// while it records the answer to the one before, one batch at a time and in order.
@Suite("Pipelined sync, through a real server", .serialized)
struct PipelinedSyncTests {
    static func insertPosts(_ device: Device, _ count: Int) async throws {
        try await device.edit { context in
            for index in 0..<count {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue("post \(index)", forKey: "title")
                post.setValue(Int64(index), forKey: "views")
            }
        }
    }

    /// A value of the engine's state in a device's cloud store file, read beside the engine.
    static func state(_ key: String, _ device: Device) -> String? {
        var configuration = Configuration()
        configuration.readonly = true
        return try? DatabaseQueue(path: device.folder.url.appendingPathComponent("Cloud.sqlite").path, configuration: configuration).read { db in
            try String.fetchOne(db, sql: "SELECT ZVALUE FROM ANIMBUSCLOUDSTATE WHERE ZKEY = ?", arguments: [key])
        }
    }

    static func pendingCount(_ device: Device) -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        return (try? DatabaseQueue(path: device.folder.url.appendingPathComponent("Cloud.sqlite").path, configuration: configuration).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM ANIMBUSCLOUDPENDING")
        }) ?? nil ?? -1
    }

    @Test("a new device downloads in the server's largest pages, asking for each next page before the one before is applied; every record arrives once")
    func pipelinedDownload() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let count = FetchZoneChangesRequest.maximumLimit + 500
        try await Self.insertPosts(a, count)
        #expect(try await a.container.syncNow().exported == count)

        let b = try Device(server: server, token: server.tokens[1], model: model)
        // Per fetch: the page size asked for, and whether the token it continues from was
        // already stored (the page before it applied) when it was asked for.
        let fetches = Mutex<[(limit: Int?, afterApplied: Bool)]>([])
        b.transport.observeFetches { request in
            let applied = request.since.map { Self.state("zoneToken", b) == $0.rawValue } ?? true
            fetches.withLock { $0.append((request.limit, applied)) }
        }
        let summary = try await b.container.syncNow()
        #expect(summary.imported == count)
        let views = try await b.snapshot("Post", key: "views")
        #expect(views.count == count)
        let seen = fetches.withLock { $0 }
        #expect(seen.first?.limit == FetchZoneChangesRequest.maximumLimit, "\(seen)")
        // The second page was asked for while the first was still being applied.
        #expect(seen.dropFirst().contains { !$0.afterApplied }, "\(seen)")
        // Nothing was applied twice or skipped: a second sync has nothing new.
        #expect(try await b.container.syncNow().imported == 0)
        #expect(try await b.snapshot("Post", key: "views").count == count)
    }

    @Test("an upload sends its next batch while it records the answer to the one before, never two at once, and every object is confirmed once")
    func pipelinedUpload() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let count = ModifyRecordsRequest.maximumItems * 3 + 50
        try await Self.insertPosts(a, count)
        // Per modify: how many objects were still pending in the store file as it was sent.
        let pendingAtSend = Mutex<[Int]>([])
        a.transport.observeModifies { _ in
            let pending = Self.pendingCount(a)
            pendingAtSend.withLock { $0.append(pending) }
        }
        #expect(try await a.container.syncNow().exported == count)
        #expect(a.transport.mostModifiesInFlight == 1)
        #expect(a.transport.largestAcceptedBatch <= ModifyRecordsRequest.maximumItems)
        let seen = pendingAtSend.withLock { $0 }
        #expect(seen.count == 4, "\(seen)")
        // Batch 2 left before the answer to batch 1 was recorded: the first batch's objects
        // were still pending (sent one after the other, batch 2 would find them confirmed).
        #expect(seen.count > 1 && seen[1] == count, "\(seen)")
        #expect(try a.container.syncStatus().first?.pendingUploads == 0)

        let b = try Device(server: server, token: server.tokens[1], model: model)
        #expect(try await b.container.syncNow().imported == count)
        #expect(try await b.snapshot("Post", key: "views").count == count)
    }
}
