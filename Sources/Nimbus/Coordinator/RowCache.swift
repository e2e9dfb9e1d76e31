import Synchronization

/// The coordinator's cache of rows, shared by its contexts: a fault fired in any context
/// reads a row from here before asking the store. Saves keep it current; it forgets
/// everything when it grows past its capacity.
final class RowCache: Sendable {
    private let rows = Mutex<[ManagedObjectID: Entry]>([:])

    /// A row and when it was cached.
    private struct Entry {
        var snapshot: RowSnapshot
        var cached: ContinuousClock.Instant
        init(_ snapshot: RowSnapshot) {
            self.snapshot = snapshot
            cached = .now
        }
    }
    let capacity: Int
    /// Saves inserting more objects than this leave their new rows out of the cache.
    static let newRowsPerSave = 1_000

    init(capacity: Int = 100_000) { self.capacity = capacity }

    func snapshot(for id: ManagedObjectID) -> RowSnapshot? { rows.withLock { $0[id]?.snapshot } }

    /// The cached row when it is at most `maximumAge` seconds old (any age when negative).
    func snapshot(for id: ManagedObjectID, maximumAge: Double) -> RowSnapshot? {
        if maximumAge < 0 { return snapshot(for: id) }
        return rows.withLock { rows in
            guard let entry = rows[id], ContinuousClock.now - entry.cached <= .seconds(maximumAge) else { return nil }
            return entry.snapshot
        }
    }

    func store(_ snapshot: RowSnapshot, for id: ManagedObjectID) {
        rows.withLock { rows in
            if rows.count >= capacity { rows.removeAll(keepingCapacity: true) }
            rows[id] = Entry(snapshot)
        }
    }

    /// Applies a save: new and changed rows replace old ones, deleted rows go.
    func apply(saved: [(ManagedObjectID, RowSnapshot)], deleted: [ManagedObjectID]) {
        rows.withLock { rows in
            if rows.count + saved.count >= capacity { rows.removeAll(keepingCapacity: true) }
            for (id, snapshot) in saved where saved.count < capacity { rows[id] = Entry(snapshot) }
            for id in deleted { rows[id] = nil }
        }
    }

    func remove(_ ids: some Sequence<ManagedObjectID>) { rows.withLock { rows in for id in ids { rows[id] = nil } } }

    func removeAll() { rows.withLock { $0.removeAll() } }
}
