import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Several stores")
struct SeveralStoresTests {
    @Test("a save that fails in its second store commits nothing, keeps temporary IDs, and a retry writes each row once")
    func atomicSave() throws {
        let stack = try TwoStoreStack()
        let later = stack.uniqueEntity(in: stack.laterStore)
        let earlier = stack.uniqueEntity(in: stack.earlierStore)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert(later, ["name": "taken"])
            try context.save()
            let first = try context.insert(earlier, ["name": "fine"])
            let duplicate = try context.insert(later, ["name": "taken"])
            #expect { try context.save() } throws: { ($0 as? NimbusError)?.code == .constraintConflict }
            #expect(first.objectID.isTemporaryID && duplicate.objectID.isTemporaryID)
            #expect(first.isInserted)
            #expect(try stack.count(earlier) == 0, "the first store rolled back with the second")
            context.delete(duplicate)
            try context.save()
            #expect(!first.objectID.isTemporaryID)
        }
        #expect(try stack.count(earlier) == 1)
        #expect(try stack.count(later) == 1)
    }

    @Test("a batch update over several stores changes all of them or none")
    func atomicBatchUpdate() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let small = try context.insert("Item", ["n": Int64(1)])
            context.assign(small, to: stack.earlierStore)
            let huge = try context.insert("Item", ["n": Int64(1_000_000_000_000)])
            context.assign(huge, to: stack.laterStore)
            try context.save()
            var update = BatchUpdateRequest(entityName: "Item")
            // 10^12 × 10^8 overflows a 64-bit integer in the later store only.
            update.propertiesToUpdate = ["n": QueryExpression.function("multiply:by:", [.keyPath(["n"]), .constant(.integer(100_000_000))])]
            #expect(throws: NimbusError.self) { try context.execute(update) }
            context.refreshAllObjects()
            #expect(small.value(forKey: "n") as? Int64 == 1, "the earlier store rolled back")
            update.propertiesToUpdate = ["n": Int64(7)]
            let result = try context.execute(update)
            #expect(result.count == 2)
        }
    }

    @Test("counts, limits, offsets, sorting, distinct and grouping read several stores as one")
    func queriesAcrossStores() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            // Cloud: 1, 3, 5 in group a; Local: 2, 4 in group a, 6 in group b.
            for (n, group, store) in [(1, "a", stack.cloud), (3, "a", stack.cloud), (5, "a", stack.cloud),
                                      (2, "a", stack.local), (4, "a", stack.local), (6, "b", stack.local)] {
                let item = try context.insert("Item", ["n": Int64(n), "group": group])
                context.assign(item, to: store)
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortDescriptors = [FetchSortDescriptor("n")]
            request.fetchOffset = 1
            request.fetchLimit = 3
            #expect(try context.fetch(request).map { $0.value(forKey: "n") as? Int64 } == [2, 3, 4])
            #expect(try context.count(for: request) == 3)
            request.fetchLimit = 10
            #expect(try context.count(for: request) == 5)
            request.affectedStores = [stack.local]
            #expect(try context.fetch(request).map { $0.value(forKey: "n") as? Int64 } == [4, 6])

            var distinct = FetchRequest<[String: Any]>(entityName: "Item")
            distinct.resultType = .dictionary
            distinct.propertiesToFetch = ["group"]
            distinct.returnsDistinctResults = true
            distinct.sortDescriptors = [FetchSortDescriptor("group")]
            #expect(try context.fetch(distinct).map { $0["group"] as? String } == ["a", "b"])

            var sorted = FetchRequest<[String: Any]>(entityName: "Item")
            sorted.resultType = .dictionary
            sorted.propertiesToFetch = ["group"]
            sorted.sortDescriptors = [FetchSortDescriptor("n", ascending: false)]
            sorted.fetchLimit = 2
            let top = try context.fetch(sorted)
            #expect(top.map { $0["group"] as? String } == ["b", "a"])
            #expect(top.allSatisfy { $0["n"] == nil }, "a sort key fetched only for sorting is not returned")

            var grouped = FetchRequest<[String: Any]>(entityName: "Item")
            grouped.resultType = .dictionary
            grouped.propertiesToGroupBy = ["group"]
            grouped.propertiesToFetch = [
                "group",
                .expression(name: "count", .function("count:", [.keyPath(["n"])]), type: .integer64),
                .expression(name: "sum", .function("sum:", [.keyPath(["n"])]), type: .integer64),
                .expression(name: "max", .function("max:", [.keyPath(["n"])]), type: .integer64),
                .expression(name: "average", .function("average:", [.keyPath(["n"])]), type: .double),
            ]
            grouped.sortDescriptors = [FetchSortDescriptor("group")]
            let groups = try context.fetch(grouped)
            #expect(groups.count == 2)
            #expect(groups[0]["group"] as? String == "a")
            #expect(Self.int(groups[0]["count"]) == 5)
            #expect(Self.int(groups[0]["sum"]) == 15)
            #expect(Self.int(groups[0]["max"]) == 5)
            #expect(groups[0]["average"] as? Double == 3)
            #expect(groups[0]["__count_average"] == nil)
            #expect(Self.int(groups[1]["count"]) == 1)

            grouped.havingPredicate = try QueryPredicate(format: "count > 1")
            #expect(try context.fetch(grouped).map { $0["group"] as? String } == ["a"])
        }
    }

    @Test("affectedStores naming a store of another coordinator is refused")
    func foreignAffectedStore() throws {
        let stack = try TwoStoreStack()
        let other = try TwoStoreStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.affectedStores = [other.cloud]
            #expect { try context.fetch(request) } throws: { ($0 as? NimbusError)?.code == .invalidArgument }
        }
    }

    @Test("assign(_:to:) places a new object in the chosen store; a store whose configuration lacks the entity is refused clearly")
    func assignment() throws {
        let stack = try TwoStoreStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let item = try context.insert("Item", [:])
            context.assign(item, to: stack.local)
            try context.save()
            #expect(item.objectID.storeIdentifier == stack.local.identifier)
            let location = try context.insert("Location", ["name": "home"])
            context.assign(location, to: stack.cloud)
            #expect { try context.save() } throws: { error in
                let error = error as? NimbusError
                return error?.code == .invalidArgument && error!.message.contains("configuration Cloud") && error!.message.contains("Location")
            }
            #expect(location.objectID.isTemporaryID)
        }
        #expect(try stack.count("Location") == 0)
    }

    @Test("a read-only store rejects saves with readOnlyStore and nothing is written")
    func readOnlyStore() throws {
        let stack = try TwoStoreStack()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        var description = stack.local.storeDescription
        description.isReadOnly = true
        try coordinator.addPersistentStore(with: description)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: stack.folder.file("Other.sqlite")).withConfiguration("Cloud"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "fine"])
            _ = try context.insert("Location", ["name": "nowhere"])
            #expect { try context.save() } throws: { error in
                let error = error as? NimbusError
                return error?.code == .readOnlyStore && error!.message.contains("read-only")
            }
        }
        #expect(try stack.count("Location") == 0)
        let check = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        #expect(try check.performAndWait { try check.count(for: FetchRequest<ManagedObject>(entityName: "Post")) } == 0)
    }

    static func int(_ value: Any?) -> Int64? {
        switch value {
        case let v as Int: Int64(v)
        case let v as Int64: v
        case let v as Double: Int64(v)
        default: nil
        }
    }
}

extension PersistentStoreDescription {
    func withConfiguration(_ name: String) -> PersistentStoreDescription {
        var copy = self
        copy.configuration = name
        return copy
    }
}
