import GRDB
import Synchronization

/// Primary keys a store's connection reserved ahead of need, per entity hierarchy, so that an
/// app saving one new object at a time does not rewrite `Z_PRIMARYKEY` in every save
/// (docs/decisions/0035).
///
/// Keys are reserved in the store (`Z_MAX` moves past them) inside a save's transaction, so
/// no other connection or process can take them. A block counts only once that transaction
/// has committed: a rolled-back reservation is forgotten (another writer may take those keys
/// next). Keys taken from a committed block by a save that then rolls back are simply never
/// used: keys can have gaps, as Core Data's can; `Z_MAX` is at least every key written.
///
/// A hierarchy gets blocks only after a few small saves in a row, so a short-lived process
/// (one command-line insert) leaves no gap. Keys taken from a block are checked against the
/// file (``SQLiteDatabase``): when its content was replaced under this connection, the block
/// is dropped.
final class KeyReservations: Sendable {
    /// Keys reserved ahead, beyond what a save asks for.
    static let blockSize: Int64 = 64
    /// Saves of fewer new objects of one hierarchy than this are small.
    static let smallSave = 16
    /// Small saves of a hierarchy, reserving exact keys, before blocks are reserved.
    static let smallSavesBeforeBlocks = 3

    private struct Hierarchy {
        /// The next free key of the committed block, and its last key.
        var next: Int64 = 1
        var last: Int64 = 0
        var smallSaves = 0
        /// The block reserved in the open transaction, until it commits.
        var tentative: ClosedRange<Int64>?
    }

    private let hierarchies = Mutex<[Int: Hierarchy]>([:])
    /// The writer connection's `PRAGMA data_version` when blocks were last checked against
    /// the file (it changes when another connection commits).
    private let checkedVersion = Mutex<Int64?>(nil)

    /// Whether no other connection has committed since the blocks were last checked.
    func isUnchanged(since version: Int64) -> Bool { checkedVersion.withLock { $0 == version } }

    /// Records that the blocks were checked against the file at `version`.
    func checked(at version: Int64) { checkedVersion.withLock { $0 = version } }

    /// The first of `count` consecutive reserved keys for a hierarchy (by its root entity
    /// number), taken from a committed block; nil when the block has too few.
    func take(_ count: Int, root: Int) -> Int64? {
        hierarchies.withLock { all in
            guard var hierarchy = all[root], hierarchy.last - hierarchy.next + 1 >= Int64(count) else { return nil }
            let first = hierarchy.next
            hierarchy.next += Int64(count)
            all[root] = hierarchy
            return first
        }
    }

    /// Drops a hierarchy's committed block (its keys are no longer known to be free).
    func forget(root: Int) {
        hierarchies.withLock { all in
            guard all[root] != nil else { return }
            (all[root]!.next, all[root]!.last) = (1, 0)
        }
    }

    /// How many keys to reserve beyond `count` for a save that needs `count` new keys.
    func extraKeys(for count: Int, root: Int) -> Int64 {
        guard count < Self.smallSave else { return 0 }
        return hierarchies.withLock { all in
            all[root, default: Hierarchy()].smallSaves += 1
            return all[root]!.smallSaves > Self.smallSavesBeforeBlocks ? Self.blockSize : 0
        }
    }

    /// Records keys reserved ahead in the transaction open on `db`: usable once it commits.
    func reserved(_ keys: ClosedRange<Int64>, root: Int, _ db: Database) {
        hierarchies.withLock { $0[root, default: Hierarchy()].tentative = keys }
        db.afterNextTransaction { [weak self] _ in
            self?.hierarchies.withLock { all in
                guard let keys = all[root]?.tentative else { return }
                all[root]!.tentative = nil
                (all[root]!.next, all[root]!.last) = (keys.lowerBound, keys.upperBound)
            }
        } onRollback: { [weak self] _ in
            self?.hierarchies.withLock { $0[root]?.tentative = nil }
        }
    }
}
