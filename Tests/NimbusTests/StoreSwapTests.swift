import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Swapping stores in one step")
struct StoreSwapTests {
    @Test("the old stores leave and the new ones arrive together; the old objects can no longer be fetched")
    func swaps() throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        let first = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("first.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "in the first"])
            try context.save()
        }
        let added = try coordinator.swapPersistentStores(removing: [first], adding: [PersistentStoreDescription(url: folder.file("second.sqlite"))])
        #expect(coordinator.persistentStores.map(\.identifier) == added.map(\.identifier))
        try context.performAndWait { () throws in
            context.reset()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 0)
            _ = try context.insert("Post", ["title": "in the second"])
            try context.save()
        }
        #expect(added.first?.url?.lastPathComponent == "second.sqlite")
    }

    @Test("a store that is not added, or a new store that can't open, changes nothing")
    func refusals() throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        let kept = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("kept.sqlite")))
        let other = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        let stranger = try other.addPersistentStore(with: PersistentStoreDescription(url: folder.file("stranger.sqlite")))
        #expect { try coordinator.swapPersistentStores(removing: [stranger], adding: [PersistentStoreDescription(url: folder.file("new.sqlite"))]) }
            throws: { ($0 as? NimbusError)?.code == .storeNotFound }
        let garbage = folder.file("garbage.sqlite")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: garbage)
        #expect { try coordinator.swapPersistentStores(removing: [kept], adding: [PersistentStoreDescription(url: garbage)]) }
            throws: { ($0 as? NimbusError)?.code == .notADatabase }
        #expect(coordinator.persistentStores.count == 1)
        #expect(coordinator.persistentStores.first === kept)
        // The kept store still works.
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "still here"])
            try context.save()
        }
    }
}
