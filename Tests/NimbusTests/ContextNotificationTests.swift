import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Collects notifications posted by one context (on its queue).
final class NotificationLog: @unchecked Sendable {
    private(set) var notes: [Notification] = []
    private var tokens: [any NSObjectProtocol] = []

    init(_ names: [Notification.Name], object: AnyObject) {
        for name in names {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [unowned self] in
                notes.append($0)
            })
        }
    }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }

    func changes(_ index: Int) -> ContextChanges? {
        notes[index].userInfo?[ManagedObjectContext.NotificationKey.changes] as? ContextChanges
    }

    func objects(_ index: Int, _ key: String) -> Set<ManagedObject> {
        notes[index].userInfo?[key] as? Set<ManagedObject> ?? []
    }
}

@Suite("Context notifications")
struct ContextNotificationTests {
    @Test("objectsDidChange reports each event's inserted, updated and deleted objects; willSave and didSave frame a save")
    func objectsDidChangeAndSave() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let log = NotificationLog([ManagedObjectContext.objectsDidChangeNotification, ManagedObjectContext.willSaveNotification,
                                   ManagedObjectContext.didSaveObjectsNotification], object: context)
        try context.performAndWait { () throws in
            let tag = try context.insert("Tag", ["name": "a"])
            try context.processPendingChanges()
            #expect(log.notes.map(\.name) == [ManagedObjectContext.objectsDidChangeNotification])
            #expect(log.objects(0, ManagedObjectContext.NotificationKey.insertedObjects) == [tag])
            try context.save()
            let names = log.notes.map(\.name)
            #expect(names.suffix(2) == [ManagedObjectContext.willSaveNotification, ManagedObjectContext.didSaveObjectsNotification])
            let saved = try #require(log.changes(log.notes.count - 1))
            #expect(saved.insertedObjectIDs == [tag.objectID] && !tag.objectID.isTemporaryID)

            let before = log.notes.count
            tag.setValue("b", forKey: "name")
            try context.processPendingChanges()
            #expect(log.notes.count == before + 1)
            #expect(log.objects(before, ManagedObjectContext.NotificationKey.updatedObjects) == [tag])
            context.delete(tag)
            try context.processPendingChanges()
            #expect(log.changes(before + 1)?.deletedObjectIDs == [tag.objectID])
            try context.processPendingChanges()
            #expect(log.notes.count == before + 2, "an event with no change posts nothing")
        }
    }

    @Test("each event's insertedObjects are its own; a save's are every object it wrote, not one inserted and deleted before it")
    func insertedObjectsPerEventAndSave() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let log = NotificationLog([ManagedObjectContext.objectsDidChangeNotification, ManagedObjectContext.didSaveObjectsNotification],
                                  object: context)
        try context.performAndWait { () throws in
            let first = try context.insert("Tag", ["name": "first"])
            try context.processPendingChanges()
            let second = try context.insert("Tag", ["name": "second"])
            let dropped = try context.insert("Tag", ["name": "dropped"])
            try context.processPendingChanges()
            #expect(log.objects(0, ManagedObjectContext.NotificationKey.insertedObjects) == [first])
            #expect(log.objects(1, ManagedObjectContext.NotificationKey.insertedObjects) == [second, dropped])
            context.delete(dropped)
            try context.save()
            let saved = try #require(log.notes.lastIndex { $0.name == ManagedObjectContext.didSaveObjectsNotification })
            #expect(log.objects(saved, ManagedObjectContext.NotificationKey.insertedObjects) == [first, second])
            #expect(log.changes(saved)?.insertedObjectIDs == [first.objectID, second.objectID])
        }
    }

    @Test("a perform block is one event")
    func performIsAnEvent() async throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let stream = context.changes(of: [.objectsDidChange])
        Self.insertTwoTags(in: context)
        var iterator = stream.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.insertedObjectIDs.count == 2)
    }

    @Test("sibling contexts merge saves through the notification; the merge is reported as refreshed and invalidated objects")
    func siblingMerge() async throws {
        let stack = try TestStack()
        let writer = stack.newContext()
        let reader = stack.newContext()
        let (keptID, goneID) = try writer.performAndWait { () throws in
            let kept = try writer.insert("Tag", ["name": "kept"])
            let gone = try writer.insert("Tag", ["name": "gone"])
            try writer.save()
            return (kept.objectID, gone.objectID)
        }
        let (kept, gone) = try reader.performAndWait { () throws in
            (try reader.existingObject(with: keptID), try reader.existingObject(with: goneID))
        }
        let merges = reader.changes(of: [.didMerge, .objectsDidChange])
        let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil) { note in
            reader.performAndWait { reader.mergeChanges(fromContextDidSave: note) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try writer.performAndWait { () throws in
            try writer.existingObject(with: keptID).setValue("renamed", forKey: "name")
            writer.delete(try writer.existingObject(with: goneID))
            try writer.save()
        }
        var iterator = merges.makeAsyncIterator()
        let merged = try #require(await iterator.next())
        #expect(merged.kind == .didMerge)
        #expect(merged.updatedObjectIDs == [keptID] && merged.deletedObjectIDs == [goneID])
        let changed = try #require(await iterator.next())
        #expect(changed.kind == .objectsDidChange)
        #expect(changed.refreshedObjectIDs == [keptID])
        #expect(changed.invalidatedObjectIDs == [goneID])
        reader.performAndWait {
            #expect(kept.value(forKey: "name") as? String == "renamed")
            #expect(gone.isDeleted || gone.managedObjectContext == nil || reader.registeredObject(for: goneID) == nil)
        }
    }

    @Test("the coordinator posts storesWillChange and storesDidChange, also as an async sequence")
    func storesChange() async throws {
        let stack = try TestStack()
        let changes = stack.coordinator.storeChanges()
        let log = NotificationLog([PersistentStoreCoordinator.storesWillChangeNotification, PersistentStoreCoordinator.storesDidChangeNotification],
                                  object: stack.coordinator)
        let second = try Self.addAndRemoveStore(stack)
        #expect(log.notes.map(\.name) == [PersistentStoreCoordinator.storesDidChangeNotification, PersistentStoreCoordinator.storesWillChangeNotification,
                                          PersistentStoreCoordinator.storesDidChangeNotification])
        #expect((log.notes[0].userInfo?[PersistentStoreCoordinator.addedStoresKey] as? [PersistentStore])?.first === second)
        var iterator = changes.makeAsyncIterator()
        let added = try #require(await iterator.next())
        #expect(!added.isWillChange && added.added.first === second)
        let will = try #require(await iterator.next())
        #expect(will.isWillChange && will.removed.first === second)
    }

    /// Inserts two tags in one `perform` block (the non-async `perform`).
    static func insertTwoTags(in context: ManagedObjectContext) {
        context.perform {
            _ = try? context.insert("Tag", ["name": "x"])
            _ = try? context.insert("Tag", ["name": "y"])
        }
    }

    static func addAndRemoveStore(_ stack: TestStack) throws -> PersistentStore {
        let second = try stack.coordinator.addPersistentStore(with: PersistentStoreDescription(url: stack.folder.file("Second.sqlite")))
        try stack.coordinator.removePersistentStore(second)
        return second
    }
}
