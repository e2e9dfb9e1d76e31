import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// A typed subclass, as an app (or the @Managed macro) writes one.
final class Note: ManagedObject {
    var text: String? {
        get { value(forKey: "text") as? String }
        set { setValue(newValue, forKey: "text") }
    }
    var createdAt: Date? { value(forKey: "createdAt") as? Date }

    override func awakeFromInsert() {
        setValue(Date(timeIntervalSinceReferenceDate: 1), forKey: "createdAt")
    }
}

@Suite("Container and concurrency")
struct ContainerTests {
    static func noteModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note", class: Note.self) {
                AttributeDescription("text", .string)
                AttributeDescription("createdAt", .date)
            }
        }
    }

    @Test("a container loads its store, typed subclasses come back typed")
    func typedObjects() throws {
        let folder = try TemporaryDirectory()
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.noteModel())
        container.persistentStoreDescriptions[0].url = folder.file("Notes.sqlite")
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let note = Note(entity: try context.entity(named: "Note"), insertInto: context)
            note.text = "hello"
            #expect(note.createdAt == Date(timeIntervalSinceReferenceDate: 1))
            try context.save()
            context.reset()
            let notes = try context.fetch(FetchRequest<Note>(entityName: "Note"))
            #expect(notes.map(\.text) == ["hello"])
        }
    }

    @Test("the default store location is under XDG_DATA_HOME, else ~/.local/share")
    func defaultLocation() throws {
        let folder = try TemporaryDirectory()
        let previous = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        defer {
            if let previous { setenv("XDG_DATA_HOME", previous, 1) } else { unsetenv("XDG_DATA_HOME") }
        }
        setenv("XDG_DATA_HOME", folder.url.path, 1)
        #expect(PersistentContainer.defaultDirectoryURL().standardizedFileURL.path == folder.file("nimbus").standardizedFileURL.path)
        let container = PersistentContainer(name: "Demo", managedObjectModel: try Self.noteModel())
        #expect(container.persistentStoreDescriptions.first?.url?.standardizedFileURL.path
            == folder.file("nimbus/Demo.sqlite").standardizedFileURL.path)
        unsetenv("XDG_DATA_HOME")
        let home = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/nimbus")
        #expect(PersistentContainer.defaultDirectoryURL().standardizedFileURL.path == home.standardizedFileURL.path)
    }

    @Test("loading stores asynchronously reports each store to the handler")
    func asyncLoading() async throws {
        let folder = try TemporaryDirectory()
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.noteModel())
        container.persistentStoreDescriptions[0].url = folder.file("Notes.sqlite")
        container.persistentStoreDescriptions[0].shouldAddStoreAsynchronously = true
        let loaded: Bool = await withCheckedContinuation { continuation in
            container.loadPersistentStores { _, error in continuation.resume(returning: error == nil) }
        }
        #expect(loaded)
        let count = try await container.performBackgroundTask { context in
            _ = try context.insertNewObject(forEntityName: "Note")
            try context.save()
            return try context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))
        }
        #expect(count == 1)
    }

    @Test("contexts that merge automatically see other contexts' saves")
    func automaticMerging() async throws {
        let folder = try TemporaryDirectory()
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.noteModel())
        container.persistentStoreDescriptions[0].url = folder.file("Notes.sqlite")
        try await container.loadPersistentStores()
        let reader = container.newBackgroundContext()
        reader.automaticallyMergesChangesFromParent = true
        let writer = container.newBackgroundContext()
        let id = try await writer.perform {
            let note = try writer.insertNewObject(forEntityName: "Note")
            note.setValue("v1", forKey: "text")
            try writer.save()
            return note.objectID
        }
        let holder = ObjectHolder()
        let held = try await reader.perform { () throws -> String? in
            let note = try reader.existingObject(with: id)
            holder.object = note
            return note.value(forKey: "text") as? String
        }
        #expect(held == "v1")
        try await writer.perform {
            writer.object(with: id).setValue("v2", forKey: "text")
            try writer.save()
        }
        // The merge is queued on the reader's queue before this block.
        let merged = try await reader.perform { holder.object?.value(forKey: "text") as? String }
        #expect(merged == "v2")
    }

    @Test("the view context works on the main queue and merges background saves")
    @MainActor
    func viewContext() async throws {
        let folder = try TemporaryDirectory()
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.noteModel())
        container.persistentStoreDescriptions[0].url = folder.file("Notes.sqlite")
        try await container.loadPersistentStores()
        let view = container.viewContext
        #expect(view.concurrencyType == .mainQueue)
        view.automaticallyMergesChangesFromParent = true
        let note = try view.performAndWait { try view.insertNewObject(forEntityName: "Note") }
        note.setValue("main", forKey: "text")
        try view.save()
        let id = note.objectID
        try await container.performBackgroundTask { context in
            context.object(with: id).setValue("background", forKey: "text")
            try context.save()
        }
        let text = try await view.perform { view.registeredObject(for: id)?.value(forKey: "text") as? String }
        #expect(text == "background")
        #expect(note.value(forKey: "text") as? String == "background")
    }

    @Test("many contexts save concurrently; every save lands")
    func concurrentSaves() async throws {
        let folder = try TemporaryDirectory()
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.noteModel())
        container.persistentStoreDescriptions[0].url = folder.file("Notes.sqlite")
        try await container.loadPersistentStores()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    try await container.performBackgroundTask { context in
                        for i in 0..<25 {
                            let note = try context.insertNewObject(forEntityName: "Note")
                            note.setValue("\(worker)-\(i)", forKey: "text")
                            try context.save()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let texts = try await container.performBackgroundTask { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "text") as? String }
        }
        #expect(Set(texts).count == 200)
    }
}

/// Keeps an object alive across `perform` blocks of its context's queue.
final class ObjectHolder: @unchecked Sendable {
    var object: ManagedObject?
}
