import Foundation
import Logging
import Synchronization
import Testing
@testable import Nimbus
import NimbusTesting

/// Issue 28, item 2: every store option key Core Data documents is accepted under its Core
/// Data name; keys with a Nimbus counterpart set it, the others (and misspelt keys) are
/// warnings, never a store that refuses to load.
@Suite("Store option keys under Core Data's names")
struct StoreOptionKeyTests {
    @Test("a stack set up with Core Data's setOption calls loads, and each mapped key sets its property")
    func mappedKeys() throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        var description = PersistentStoreDescription(url: folder.file("Posts.sqlite"))
        description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
        description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
        description.setOption(false as NSNumber, forKey: NSInferMappingModelAutomaticallyOption)
        description.setOption(false as NSNumber, forKey: NSMigratePersistentStoresAutomaticallyOption)
        description.setOption(3 as NSNumber, forKey: NSPersistentStoreConnectionPoolMaxSizeKey)
        description.setOption(7 as NSNumber, forKey: NSPersistentStoreTimeoutOption)
        description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
        let store = try coordinator.addPersistentStore(with: description)
        let resolved = store.storeDescription
        #expect(resolved.persistentHistoryTracking)
        #expect(resolved.postsRemoteChangeNotifications)
        #expect(!resolved.shouldInferMappingModelAutomatically)
        #expect(!resolved.shouldMigrateStoreAutomatically)
        #expect(resolved.maximumConnectionPoolSize == 3)
        #expect(resolved.timeout == 7)
        #expect(resolved.journalMode == .delete)
        let mode = try store.database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode?.lowercased() == "delete")
        #expect(!FileManager.default.fileExists(atPath: folder.file("Posts.sqlite-wal").path))
    }

    @Test("every documented key without a counterpart, a pragma and a misspelt key: the store loads, each is one warning")
    func acceptedKeys() throws {
        let folder = try TemporaryDirectory()
        var description = PersistentStoreDescription(url: folder.file("Posts.sqlite"))
        for key in PersistentStoreDescription.acceptedOptions.keys { description.setOption(true as NSNumber, forKey: key) }
        description.setOption(["synchronous": "OFF", "journal_mode": "WAL"] as NSDictionary, forKey: NSSQLitePragmasOption)
        description.setOption(true as NSNumber, forKey: "NSPersistentHistoryTrackingkey")
        let (_, warnings) = try description.resolvingOptions()
        let warned = Set(warnings.map(\.key))
        #expect(warned == Set(PersistentStoreDescription.acceptedOptions.keys)
            .union(["NSSQLitePragmasOption.synchronous", "NSPersistentHistoryTrackingkey"]))
        let typo = try #require(warnings.first { $0.key == "NSPersistentHistoryTrackingkey" })
        #expect(typo.message.contains("did you mean NSPersistentHistoryTrackingKey?"), "\(typo.message)")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        let store = try coordinator.addPersistentStore(with: description)
        #expect(!store.storeDescription.persistentHistoryTracking, "a misspelt key sets nothing")
        #expect(store.storeDescription.journalMode == .wal)
    }

    @Test("each warning is logged once per process through swift-log")
    func warnedOnce() throws {
        let handler = RecordingLogHandler()
        let logger = Logger(label: "test") { _ in handler }
        let key = "NSMadeUpOption-\(UUID().uuidString)"
        let warning = StoreOptionWarning(key: key, message: "the store option \(key) is not a Core Data or Nimbus option and was ignored")
        #expect(StoreOptionWarning.reportOnce([warning], to: logger) == [warning])
        #expect(StoreOptionWarning.reportOnce([warning], to: logger).isEmpty)
        #expect(handler.messages == [warning.message])
        #expect(handler.levels == [.warning])
    }

    @Test("Core Data's addPersistentStore(ofType:configurationName:at:options:) takes an option dictionary")
    func addOfType() throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        let store = try coordinator.addPersistentStore(
            ofType: NSSQLiteStoreType, configurationName: nil, at: folder.file("Posts.sqlite"),
            options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
                      NSPersistentHistoryTrackingKey: true as NSNumber, NSSQLiteAnalyzeOption: true])
        #expect(store.storeDescription.persistentHistoryTracking)
        let memory = try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil)
        #expect(memory.type == .inMemory)
        #expect { try coordinator.addPersistentStore(ofType: "Binary", configurationName: nil, at: folder.file("b")) } throws: {
            ($0 as? NimbusError)?.code == .invalidArgument
        }
    }

    @Test("a malformed value of a known key is refused, naming the key, and creates nothing", arguments: [
        [NSReadOnlyPersistentStoreOption: "maybe"],
        [NSPersistentStoreConnectionPoolMaxSizeKey: "0"],
        [NSSQLitePragmasOption: "journal_mode=MEMORY"],
        [NSPersistentStoreRemoteChangeNotificationPostOptionKey: "sometimes"],
    ])
    func malformedValues(_ options: [String: String]) throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        var description = PersistentStoreDescription(url: folder.file("Posts.sqlite"))
        description.options = options
        #expect { try coordinator.addPersistentStore(with: description) } throws: { ($0 as? NimbusError)?.code == .invalidArgument }
        #expect(!FileManager.default.fileExists(atPath: folder.file("Posts.sqlite").path), "a refused store was created")
    }
}

/// A swift-log handler that keeps what it is given.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    private let lock = Mutex<[(Logger.Level, String)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    var messages: [String] { lock.withLock { $0.map(\.1) } }
    var levels: [Logger.Level] { lock.withLock { $0.map(\.0) } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.withLock { $0.append((event.level, event.message.description)) }
    }
}
