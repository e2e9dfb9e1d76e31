import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

/// A read that fails (a lock held too long, an I/O error, a corrupt page) is not a deleted
/// row: the object stays live, the error reaches the caller, and a save does not silently
/// drop the edits made through it.
@Suite("Faults whose read fails")
struct FaultErrorTests {
    /// A rollback-journal store with a short lock timeout, seeded with posts of one author.
    private func makeStore() throws -> (TemporaryDirectory, URL, ManagedObjectModel) {
        let folder = try TemporaryDirectory()
        let url = folder.file("Posts.sqlite")
        let model = try PostsModel.make()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: description(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let author = try context.insert("Person", ["name": "Ada"])
            let tag = try context.insert("Tag", ["name": "swift"])
            for i in 0..<3 { _ = try context.insert("Post", ["title": "p\(i)", "views": i, "author": author, "tags": Set([tag])]) }
            try context.save()
        }
        return (folder, url, model)
    }

    private func description(_ url: URL) -> PersistentStoreDescription {
        var description = PersistentStoreDescription(url: url)
        description.journalMode = .delete
        description.timeout = 0.05
        return description
    }

    /// A context on a new coordinator (no shared row cache) over the file.
    private func freshContext(_ url: URL, _ model: ManagedObjectModel) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: description(url))
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    /// Faults for every post (no values read yet).
    private func postFaults(_ context: ManagedObjectContext) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: "Post")
        request.includesPropertyValues = false
        request.sortDescriptors = [FetchSortDescriptor("views")]
        return try context.fetch(request)
    }

    /// Holds an exclusive lock on the file from another connection until released.
    private final class ExclusiveLock {
        let queue: DatabaseQueue
        init(_ url: URL) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            queue = try DatabaseQueue(path: url.path, configuration: configuration)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        }
        func release() throws {
            try queue.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        }
    }

    @Test("a fault whose read is refused by a lock stays live, and its value comes once the lock is gone")
    func busyFaultStaysLive() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let context = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = try #require(try postFaults(context).first)
            let lock = try ExclusiveLock(url)
            #expect(post.value(forKey: "title") == nil)
            #expect(!post.isDeleted)
            #expect(post.isFault)
            #expect(throws: NimbusError.self) { try post.validatedValue(forKey: "title") }
            #expect(throws: NimbusError.self) { try post.fireFault() }
            try lock.release()
            #expect(try post.validatedValue(forKey: "title") as? String == "p0")
            #expect(!post.isDeleted)
        }
    }

    @Test("an edit made while the object's fault could not be read makes the next save fail, not vanish")
    func busyFaultFailsSave() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let context = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = try #require(try postFaults(context).first)
            let lock = try ExclusiveLock(url)
            post.setValue("edited", forKey: "title")
            try lock.release()
            let error = try #require(throws: NimbusError.self) { try context.save() }
            #expect(error.code == .sqliteError, "\(error)")
            #expect(error.message.contains(post.objectID.description), "\(error.message)")
            // Refreshing the object acknowledges the failure; the edit can then be made again.
            context.refresh(post, mergeChanges: false)
            post.setValue("edited", forKey: "title")
            try context.save()
        }
        let check = try freshContext(url, model)
        try check.performAndWait { () throws in
            #expect(try check.all("Post", sortedBy: "views").first?.value(forKey: "title") as? String == "edited")
        }
    }

    @Test("setting a value through the throwing accessor reports the failed read")
    func throwingSetter() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let context = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = try #require(try postFaults(context).first)
            let lock = try ExclusiveLock(url)
            #expect(throws: NimbusError.self) { try post.setValidatedValue("edited", forKey: "title") }
            try lock.release()
            #expect(!context.hasChanges)
            try context.save()
        }
    }

    @Test("a to-many relationship whose read fails is not taken as empty: a deny rule still holds")
    func busyToManyKeepsDeny() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let context = try freshContext(url, model)
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Tag")
            request.includesPropertyValues = true
            let tag = try #require(try context.fetch(request).first)
            _ = tag.value(forKey: "name")
            let lock = try ExclusiveLock(url)
            #expect(throws: NimbusError.self) { try tag.validatedValue(forKey: "posts") }
            #expect(tag.value(forKey: "posts") == nil)
            context.delete(tag)
            #expect(throws: NimbusError.self) { try context.save() }
            try lock.release()
            // With the lock gone the posts are read, and the deny rule refuses the delete.
            let error = try #require(throws: NimbusError.self) { try context.save() }
            #expect(error.code == .deleteDenied || error.code == .sqliteError, "\(error)")
            context.rollback()
            #expect((tag.value(forKey: "posts") as? Set<ManagedObject>)?.count == 3)
        }
    }

    @Test("a fault whose page is corrupt is a corruptStore error, and the object stays live")
    func corruptPage() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let reader = try freshContext(url, model)
        let ids = try reader.performAndWait { () throws in try reader.all("Post", sortedBy: "views").map(\.objectID) }
        // Overwrite the Post table's root page (the rows) with garbage.
        let (rootPage, pageSize) = try DatabaseQueue(path: url.path).read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'ZPOST'")!, try Int.fetchOne(db, sql: "PRAGMA page_size")!)
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seek(toOffset: UInt64((rootPage - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: pageSize))
        try handle.close()
        let context = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = context.object(with: try #require(ids.first))
            #expect(post.value(forKey: "title") == nil)
            #expect(!post.isDeleted)
            #expect(post.isFault)
            let error = try #require(throws: NimbusError.self) { try post.validatedValue(forKey: "title") }
            #expect(error.code == .corruptStore, "\(error)")
            post.setValue("edited", forKey: "title")
            let saveError = try #require(throws: NimbusError.self) { try context.save() }
            #expect(saveError.code == .corruptStore, "\(saveError)")
        }
    }

    @Test("a row that is really gone still makes an inaccessible (deleted) object by default")
    func goneRowIsInaccessible() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let context = try freshContext(url, model)
        let other = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = try #require(try postFaults(context).first)
            try other.performAndWait { () throws in
                other.delete(try #require(try other.all("Post", sortedBy: "views").first))
                try other.save()
            }
            #expect(post.value(forKey: "title") == nil)
            #expect(!post.isFault)
            try context.save()
        }
    }

    @Test("with shouldDeleteInaccessibleFaults false, a gone row is an inaccessibleFault error through public API")
    func inaccessibleFaultError() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let context = try freshContext(url, model)
        context.shouldDeleteInaccessibleFaults = false
        let other = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = try #require(try postFaults(context).first)
            try other.performAndWait { () throws in
                other.delete(try #require(try other.all("Post", sortedBy: "views").first))
                try other.save()
            }
            let error = try #require(throws: NimbusError.self) { try post.validatedValue(forKey: "title") }
            #expect(error.code == .inaccessibleFault)
            #expect(!post.isDeleted)
            // The non-throwing accessor gives nil and the next save reports the fault.
            #expect(post.value(forKey: "title") == nil)
            let saveError = try #require(throws: NimbusError.self) { try context.save() }
            #expect(saveError.code == .inaccessibleFault, "\(saveError)")
        }
    }

    @Test("an edit to an object another context deleted is a merge conflict on save")
    func editOfDeletedIsConflict() throws {
        let (folder, url, model) = try makeStore()
        defer { withExtendedLifetime(folder) {} }
        let context = try freshContext(url, model)
        let other = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = try #require(try postFaults(context).first)
            try other.performAndWait { () throws in
                other.delete(try #require(try other.all("Post", sortedBy: "views").first))
                try other.save()
            }
            post.setValue("edited", forKey: "title")
            let error = try #require(throws: NimbusError.self) { try context.save() }
            #expect(error.code == .mergeConflict, "\(error)")
        }
    }

    @Test("an edit to a loaded object whose deletion was merged in is a merge conflict on save")
    func editOfMergedDeleteIsConflict() throws {
        let stack = try TestStack()
        let seed = stack.newContext()
        let id = try seed.performAndWait { () throws in
            let post = try seed.insert("Post", ["title": "p"])
            try seed.save()
            return post.objectID
        }
        let context = stack.newContext()
        let post = try context.performAndWait { () throws in
            let post = context.object(with: id)
            _ = post.value(forKey: "title")
            return post
        }
        let other = stack.newContext()
        try other.performAndWait { () throws in
            other.delete(other.object(with: id))
            try other.save()
            let notification = SaveNotification(deletedObjectIDs: [id])
            context.performAndWait { context.mergeChanges(fromContextDidSave: notification) }
        }
        try context.performAndWait { () throws in
            post.setValue("edited", forKey: "title")
            #expect(context.hasChanges)
            let error = try #require(throws: NimbusError.self) { try context.save() }
            #expect(error.code == .mergeConflict, "\(error)")
        }
    }

    /// Object trump that takes an exclusive lock on the store file from another connection
    /// while it merges, so its reads of the stored row fail.
    final class LockedUpsert: MergePolicy, @unchecked Sendable {
        let url: URL
        init(_ url: URL) {
            self.url = url
            super.init(type: .mergeByPropertyObjectTrump)
        }
        override func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
            let lock = try ExclusiveLock(url)
            defer { try? lock.release() }
            try super.resolve(constraintConflicts: conflicts, in: context)
        }
    }

    @Test("an upsert whose read of the stored row fails fails the save and changes nothing; the next save upserts")
    func busyUpsertFailsSave() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Tags.sqlite")
        // Post ↔ Tag, with tags unique by name (one store holding every entity).
        let model = try TwoStoreStack.makeModel()
        let seeder = try freshContext(url, model)
        let storedID = try seeder.performAndWait { () throws in
            let tag = try seeder.insert("Tag", ["name": "swift"])
            _ = try seeder.insert("Post", ["title": "stored", "tags": Set([tag])])
            try seeder.save()
            return tag.objectID
        }
        let context = try freshContext(url, model)
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "new"])
            let tag = try context.insert("Tag", ["name": "swift"])
            post.setValue(Set([tag]), forKey: "tags")
            context.mergePolicy = LockedUpsert(url)
            let error = try #require(throws: NimbusError.self) { try context.save() }
            #expect(error.code == .sqliteError, "\(error)")
            // The new tag was not merged as if the stored one had no posts: it is still new.
            #expect(tag.objectID.isTemporaryID && tag.isInserted)
            #expect(context.hasChanges)
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
            #expect(tag.objectID == storedID)
            let titles = (tag.value(forKey: "posts") as? Set<ManagedObject>)?.compactMap { $0.value(forKey: "title") as? String }.sorted()
            #expect(titles == ["new", "stored"])
        }
        let reader = try freshContext(url, model)
        try reader.performAndWait { () throws in
            #expect(try reader.all("Tag").count == 1)
            let tag = try reader.existingObject(with: storedID)
            #expect((tag.value(forKey: "posts") as? Set<ManagedObject>)?.count == 2)
        }
    }
}
