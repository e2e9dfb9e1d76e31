import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

/// Primary keys reserved ahead for small saves (docs/decisions/0035): no key is ever given
/// twice, `Z_MAX` is at least every key written, and a reservation counts only once its
/// transaction commits.
@Suite("Key reservations")
struct KeyReservationTests {
    private func maximumKey(_ url: URL, _ entity: String = "Post") throws -> (zMax: Int64, highest: Int64, rows: Int) {
        try DatabaseQueue(path: url.path).read { db in
            (try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [entity]) ?? -1,
             try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM ZPOST") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPOST") ?? 0)
        }
    }

    @Test("a few single saves take exact keys; later ones take keys reserved ahead, consecutive and never rewritten")
    func singleSaves() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var keys: [Int64] = []
            for i in 0..<KeyReservations.smallSavesBeforeBlocks {
                let post = try context.insert("Post", ["title": "p\(i)"])
                try context.save()
                keys.append(post.objectID.primaryKey)
                #expect(try maximumKey(stack.url).zMax == Int64(i + 1), "no gap while saves are few")
            }
            for i in 0..<100 {
                let post = try context.insert("Post", ["title": "q\(i)"])
                try context.save()
                keys.append(post.objectID.primaryKey)
                let state = try maximumKey(stack.url)
                #expect(state.zMax >= state.highest)
            }
            #expect(keys == Array(1...Int64(keys.count)), "one process's keys stay consecutive")
            // Past the first three, two reservations (each its save's key and a block of 64)
            // cover 100 saves.
            #expect(try maximumKey(stack.url).zMax == Int64(KeyReservations.smallSavesBeforeBlocks) + 2 * (1 + KeyReservations.blockSize))
        }
    }

    @Test("two coordinators saving one object at a time on one file never take the same key")
    func twoCoordinators() throws {
        let stack = try TestStack()
        let first = stack.newContext()
        let second = try stack.reopenedContext()
        var keys = Set<Int64>()
        for i in 0..<150 {
            for (name, context) in [("a", first), ("b", second)] {
                let key = try context.performAndWait { () throws -> Int64 in
                    let post = try context.insert("Post", ["title": "\(name)\(i)"])
                    try context.save()
                    return post.objectID.primaryKey
                }
                #expect(keys.insert(key).inserted, "key \(key) given twice")
            }
        }
        let state = try maximumKey(stack.url)
        #expect(state.rows == 300)
        #expect(state.zMax >= state.highest)
    }

    @Test("keys reserved in a transaction that rolls back are not used; in one that commits they are")
    func reservationsFollowTheTransaction() throws {
        let stack = try TestStack()
        let database = try DatabaseQueue(path: stack.url.path)
        let reservations = KeyReservations()
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try database.write { db in
                reservations.reserved(10...20, root: 5, db)
                throw Refused()
            }
        }
        #expect(reservations.take(1, root: 5) == nil)
        try database.write { db in reservations.reserved(30...40, root: 5, db) }
        #expect(reservations.take(4, root: 5) == 30)
        #expect(reservations.take(7, root: 5) == 34)
        #expect(reservations.take(1, root: 5) == nil, "the block is used up")
        #expect(reservations.take(1, root: 6) == nil, "blocks are per hierarchy")
    }

    @Test("a save that fails after taking reserved keys leaves a gap, never a duplicate")
    func failedSaveLeavesAGap() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0...KeyReservations.smallSavesBeforeBlocks {
                _ = try context.insert("Post", ["title": "p\(i)"])
                try context.save()
            }
        }
        // A lock held by another connection makes the next save fail after it took its key.
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let lock = try DatabaseQueue(path: stack.url.path, configuration: configuration)
        try lock.writeWithoutTransaction { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        let other = try stack.reopenedContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "blocked"])
            #expect(throws: NimbusError.self) { try context.save() }
            try lock.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
            let otherKey = try other.performAndWait { () throws -> Int64 in
                let made = try other.insert("Post", ["title": "other"])
                try other.save()
                return made.objectID.primaryKey
            }
            try context.save()
            #expect(post.objectID.primaryKey != otherKey)
        }
        let state = try maximumKey(stack.url)
        #expect(state.rows == KeyReservations.smallSavesBeforeBlocks + 3)
        #expect(state.zMax >= state.highest)
    }

    @Test("a block reserved before another coordinator replaced the file is dropped: no key collides with the new content")
    func replacedFile() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        func saveOne(_ title: String) throws -> Int64 {
            try context.performAndWait { () throws -> Int64 in
                let post = try context.insert("Post", ["title": title])
                try context.save()
                return post.objectID.primaryKey
            }
        }
        for i in 0...KeyReservations.smallSavesBeforeBlocks { _ = try saveOne("p\(i)") }
        let replacer = try stack.reopenedContext().persistentStoreCoordinator

        // Replaced by a store with more rows: keys of the block are taken there.
        let bigger = try TestStack()
        let filler = bigger.newContext()
        try filler.performAndWait { () throws in
            for i in 0..<40 { _ = try filler.insert("Post", ["title": "b\(i)"]) }
            try filler.save()
        }
        try replacer.replacePersistentStore(at: stack.url, withPersistentStoreFrom: bigger.url)
        let afterBigger = try saveOne("after bigger")
        #expect(afterBigger > 40)
        #expect(try maximumKey(stack.url).rows == 41)

        // Replaced by an empty store: Z_MAX no longer covers the block.
        let empty = try TestStack()
        try replacer.replacePersistentStore(at: stack.url, withPersistentStoreFrom: empty.url)
        #expect(try saveOne("after empty") == 1)
        let state = try maximumKey(stack.url)
        #expect(state.rows == 1 && state.zMax >= state.highest)
    }
}
