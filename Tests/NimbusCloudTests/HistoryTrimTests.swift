import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

@Suite("The mirroring purges history every consumer has read", .serialized)
struct HistoryTrimTests {
    static func container(_ server: SyncServer, retention: TimeInterval?, folder: TemporaryDirectory, identifier: String = "notes") throws -> CloudContainer {
        let container = CloudContainer(name: "notes", managedObjectModel: try SharingModel.model())
        container.automaticallySyncs = false
        container.historyRetention = retention
        var description = PersistentStoreDescription(url: folder.url.appendingPathComponent("notes.sqlite"))
        description.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: identifier, token: server.tokens[0])
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    static func save(_ container: CloudContainer, _ texts: [String]) async throws {
        let context = container.newBackgroundContext()
        try await context.perform {
            for text in texts {
                let note = try context.insertNewObject(forEntityName: "Note")
                note.setValue(text, forKey: "text")
                try context.save()
            }
        }
    }

    static func transactions(_ container: CloudContainer, after token: PersistentHistoryToken?) async throws -> Int {
        let context = container.newBackgroundContext()
        return try await context.perform { try context.execute(.fetchHistory(after: token)).transactions.count }
    }

    @Test("read history older than the retention goes after a sync; a registered reader's unread history stays")
    func purgesWhatEveryoneRead() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let container = try Self.container(server, retention: 0, folder: folder)
        let coordinator = container.persistentStoreCoordinator
        try await Self.save(container, ["a", "b"])
        // A widget registers having read up to here; two more saves follow.
        let widget = try #require(try coordinator.currentPersistentHistoryToken())
        try coordinator.setHistoryToken(widget, forConsumer: "widget")
        try await Self.save(container, ["c", "d"])
        try await container.syncNow()
        // The first two are read by everyone: gone (what is left is what the widget has not read).
        #expect(try await Self.transactions(container, after: nil) == 2)
        // What the widget has not read is still there.
        #expect(try await Self.transactions(container, after: widget) == 2)
        // Once the widget catches up, the rest goes at the next sync (its old token has expired).
        let caughtUp = try #require(try coordinator.currentPersistentHistoryToken())
        try coordinator.setHistoryToken(caughtUp, forConsumer: "widget")
        try await container.syncNow()
        await #expect(throws: NimbusError.self) { _ = try await Self.transactions(container, after: widget) }
    }

    @Test("within the retention (7 days by default) nothing is purged, and with no retention never")
    func keepsRecentHistory() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        for retention in [7 * 24 * 3600.0, nil] {
            let folder = try TemporaryDirectory()
            let container = try Self.container(server, retention: retention, folder: folder, identifier: "notes-\(retention.map { String(Int($0)) } ?? "never")")
            try await Self.save(container, ["x", "y", "z"])
            try await container.syncNow()
            #expect(try await Self.transactions(container, after: nil) == 3)
        }
    }
}

