import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Issue 28, item 5: fetching history after a token whose following history was purged
/// throws `historyTokenExpired` (Core Data's `NSPersistentHistoryTokenExpiredError`) instead
/// of silently returning what is left.
@Suite("History token expiry")
struct HistoryTokenExpiryTests {
    @Test("a token older than a purge has expired; a token at or after the purge, and nil, still read")
    func expiredAfterPurge() throws {
        let stack = try TestStack(history: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for name in ["a", "b", "c", "d"] {
                _ = try context.insert("Tag", ["name": name])
                try context.save()
            }
            let all = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
            #expect(all.map(\.transactionNumber) == [1, 2, 3, 4])
            // Before the purge every token reads.
            #expect(try context.execute(.fetchHistory(after: all[0].token)).transactions.count == 3)
            _ = try context.execute(.deleteHistory(before: all[1].token))
            #expect { try context.execute(.fetchHistory(after: all[0].token)) } throws: { error in
                guard let error = error as? NimbusError, error.code == .historyTokenExpired else { return false }
                return error.message.contains("purged up to transaction 2")
            }
            #expect { try context.execute(PersistentHistoryChangeRequest(operation: .fetch(after: .transaction(0)))) } throws: {
                ($0 as? NimbusError)?.code == .historyTokenExpired
            }
            #expect(try context.execute(.fetchHistory(after: all[1].token)).transactions.map(\.transactionNumber) == [3, 4])
            #expect(try context.execute(.fetchHistory(after: all[3].token)).transactions.isEmpty)
            #expect(try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.count == 2)
            // Everything purged: only the newest token still reads.
            _ = try context.execute(.deleteHistory(before: all[3].token))
            #expect { try context.execute(.fetchHistory(after: all[2].token)) } throws: { ($0 as? NimbusError)?.code == .historyTokenExpired }
            #expect(try context.execute(.fetchHistory(after: all[3].token)).transactions.isEmpty)
        }
    }
}
