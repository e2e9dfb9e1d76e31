import Foundation
import Synchronization
import Testing
@testable import Nimbus
import NimbusTesting

/// A store removed from its coordinator while other threads still read it: the reads end
/// with a clear error, never a crash on a closed connection (seed 1602 of the convergence
/// sweep: the in-process device's store was removed while one of its reads was starting).
@Suite("Store removal under reads")
struct StoreRemovalRaceTests {
    @Test("reads racing a store's removal either read or fail with storeNotFound")
    func readsRacingRemoval() throws {
        let stack = try TestStack()
        let seeder = stack.newContext()
        try seeder.performAndWait { () throws in
            for i in 0..<20 { _ = try seeder.insert("Post", ["title": "p\(i)"]) }
            try seeder.save()
        }
        for round in 0..<150 {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
            let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: stack.url))
            let outcomes = Mutex<(reads: Int, errors: [String])>((0, []))
            let readers = DispatchGroup()
            for _ in 0..<3 {
                DispatchQueue.global().async(group: readers) {
                    while true {
                        do {
                            let count = try store.database.readStatement { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPOST") }
                            #expect(count == 20)
                            outcomes.withLock { $0.reads += 1 }
                        } catch let error as NimbusError where error.code == .storeNotFound {
                            return
                        } catch {
                            outcomes.withLock { $0.errors.append("\(error)") }
                            return
                        }
                    }
                }
            }
            Thread.sleep(forTimeInterval: Double(round % 7) / 2_000)
            try coordinator.removePersistentStore(store)
            readers.wait()
            let result = outcomes.withLock { $0 }
            #expect(result.errors.isEmpty, "round \(round): \(result.errors)")
        }
    }
}
