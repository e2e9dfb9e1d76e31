import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Merge policies")
struct MergePolicyTests {
    /// A saved post edited by two contexts: the other context saves title "store" and
    /// views 9; this one changed title to "mine" and body to "b1". Returns the post as
    /// the policy left it, after the save, read back from the store.
    static func conflict(_ policy: MergePolicy) throws -> (title: String?, body: String?, views: Int64?, error: NimbusError?) {
        let stack = try TestStack()
        let mine = stack.newContext()
        let other = stack.newContext()
        let id = try mine.performAndWait { () throws in
            let post = try mine.insert("Post", ["title": "t0", "body": "b0", "views": Int64(1)])
            try mine.save()
            post.setValue("mine", forKey: "title")
            post.setValue("b1", forKey: "body")
            return post.objectID
        }
        try other.performAndWait { () throws in
            let post = try other.existingObject(with: id)
            post.setValue("store", forKey: "title")
            post.setValue(Int64(9), forKey: "views")
            try other.save()
        }
        var failure: NimbusError?
        try mine.performAndWait { () throws in
            mine.mergePolicy = policy
            do { try mine.save() } catch let error as NimbusError { failure = error }
        }
        let check = try stack.reopenedContext()
        return try check.performAndWait { () throws in
            let post = try check.existingObject(with: id)
            return (post.value(forKey: "title") as? String, post.value(forKey: "body") as? String, post.value(forKey: "views") as? Int64, failure)
        }
    }

    @Test("the error policy (the default) fails and reports old, new and store values of each conflict")
    func errorPolicy() throws {
        let result = try Self.conflict(.error)
        let error = try #require(result.error)
        #expect(error.code == .mergeConflict)
        let conflict = try #require(error.mergeConflicts.first)
        #expect(conflict.cachedSnapshot["title"] == .string("t0"))
        #expect(conflict.objectSnapshot["title"] == .string("mine"))
        #expect(conflict.persistedSnapshot?["title"] == .string("store"))
        #expect(conflict.oldVersionNumber == 1 && conflict.newVersionNumber == 2)
        #expect(error.message.contains("title: old \"t0\", new \"mine\", store \"store\""))
        #expect(result.title == "store" && result.body == "b0", "nothing of the failed save was written")
    }

    @Test("each built-in policy merges as Apple documents", arguments: [
        (MergePolicy.PolicyType.mergeByPropertyStoreTrump, "store", "b1", Int64(9)),
        (.mergeByPropertyObjectTrump, "mine", "b1", 9),
        (.overwrite, "mine", "b1", 1),
        (.rollback, "store", "b0", 9),
    ])
    func builtInPolicies(type: MergePolicy.PolicyType, title: String, body: String, views: Int64) throws {
        let result = try Self.conflict(MergePolicy(type: type))
        #expect(result.error == nil)
        #expect(result.title == title)
        #expect(result.body == body)
        #expect(result.views == views)
    }

    @Test("a row deleted in the store stays deleted under a merging policy; the error policy reports it")
    func deletedRow() throws {
        for policy in [MergePolicy.error, .mergeByPropertyObjectTrump] {
            let stack = try TestStack()
            let mine = stack.newContext()
            let other = stack.newContext()
            let id = try mine.performAndWait { () throws in
                let post = try mine.insert("Post", ["title": "t0"])
                try mine.save()
                post.setValue("mine", forKey: "title")
                return post.objectID
            }
            try other.performAndWait { () throws in
                other.delete(try other.existingObject(with: id))
                try other.save()
            }
            try mine.performAndWait { () throws in
                mine.mergePolicy = policy
                if policy.type == .error {
                    #expect { try mine.save() } throws: { error in
                        let error = error as? NimbusError
                        return error?.code == .mergeConflict && error?.mergeConflicts.first?.persistedSnapshot == nil
                    }
                } else {
                    try mine.save()
                    #expect(mine.registeredObject(for: id) == nil)
                    #expect(!mine.hasChanges)
                }
            }
            let reader = try stack.reopenedContext()
            #expect(try reader.performAndWait { try reader.all("Post").count } == 0)
        }
    }

    final class LongestTitleWins: MergePolicy, @unchecked Sendable {
        var seen: [MergeConflict] = []
        init() { super.init(type: .mergeByPropertyObjectTrump) }
        override func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
            seen += conflicts
            for conflict in conflicts {
                guard case let .string(store)? = conflict.persistedSnapshot?["title"],
                      case let .string(mine)? = conflict.objectSnapshot["title"], store.count > mine.count else { continue }
                context.registeredObject(for: conflict.objectID)?.setValue(store + "!", forKey: "title")
            }
            try super.resolve(optimisticLockingConflicts: conflicts, in: context)
        }
    }

    @Test("a custom policy sees the conflicts, changes objects, and lets its type settle the rest")
    func customPolicy() throws {
        let policy = LongestTitleWins()
        let result = try Self.conflict(policy)
        #expect(policy.seen.count == 1)
        #expect(result.title == "store!")
        #expect(result.body == "b1")
    }

    @Test("uniqueness: the error policy lists each conflict; object trump upserts into the stored row")
    func constraintUpsert() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        let storedID = try context.performAndWait { () throws in
            let tag = try context.insert("Tag", ["name": "swift"])
            try context.save()
            return tag.objectID
        }
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            let post = try writer.insert("Post", ["title": "p"])
            let tag = try writer.insert("Tag", ["name": "swift"])
            post.setValue(Set([tag]), forKey: "tags")
            #expect { try writer.save() } throws: { error in
                let error = error as? NimbusError
                return error?.code == .constraintConflict && error?.constraintConflicts.first?.databaseObjectID == storedID
                    && error?.constraintConflicts.first?.constraintValues["name"] == .string("swift")
            }
            writer.mergePolicy = .mergeByPropertyObjectTrump
            try writer.save()
            #expect(tag.objectID == storedID, "the new tag became the stored row")
            #expect((post.value(forKey: "tags") as? Set<ManagedObject>)?.map(\.objectID) == [storedID])
        }
        #expect(try stack.count("Tag") == 1)
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let tag = try reader.existingObject(with: storedID)
            #expect((tag.value(forKey: "posts") as? Set<ManagedObject>)?.count == 1)
        }
    }

    @Test("uniqueness: duplicates within one save become one object under a merging policy")
    func duplicatesInOneSave() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            context.mergePolicy = .mergeByPropertyStoreTrump
            let first = try context.insert("Tag", ["name": "x"])
            let second = try context.insert("Tag", ["name": "x"])
            let post = try context.insert("Post", ["title": "p"])
            post.setValue(Set([second]), forKey: "tags")
            try context.save()
            #expect(second.managedObjectContext == nil)
            #expect((post.value(forKey: "tags") as? Set<ManagedObject>) == [first])
        }
        #expect(try stack.count("Tag") == 1)
    }

    @Test("uniqueness under store trump keeps the stored values")
    func constraintStoreTrump() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Account", uniquenessConstraints: [["email"]]) {
                AttributeDescription("email", .string)
                AttributeDescription("name", .string)
            }
        }
        let stack = try TestStack(model: model)
        let context = stack.newContext()
        let storedID = try context.performAndWait { () throws in
            let account = try context.insert("Account", ["email": "a@b", "name": "stored"])
            try context.save()
            return account.objectID
        }
        let other = stack.newContext()
        try other.performAndWait { () throws in
            other.mergePolicy = .mergeByPropertyStoreTrump
            let duplicate = try other.insert("Account", ["email": "a@b", "name": "new"])
            try other.save()
            #expect(duplicate.objectID == storedID)
            #expect(duplicate.value(forKey: "name") as? String == "stored")
        }
        try context.performAndWait { () throws in
            // The stored row's object is registered here: the new duplicate merges into it.
            context.mergePolicy = .mergeByPropertyObjectTrump
            let again = try context.insert("Account", ["email": "a@b", "name": "newest"])
            try context.save()
            #expect(again.managedObjectContext == nil)
            #expect(try context.existingObject(with: storedID).value(forKey: "name") as? String == "newest")
        }
        let reader = try stack.reopenedContext()
        try reader.performAndWait { () throws in
            let accounts = try reader.all("Account")
            #expect(accounts.count == 1)
            #expect(accounts.first?.value(forKey: "name") as? String == "newest")
        }
    }
}
