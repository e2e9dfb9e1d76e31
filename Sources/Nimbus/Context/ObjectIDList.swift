import Synchronization

/// Distinct object IDs, kept as the array they came in; their `Set` is built on first use
/// (save and change notifications carry many IDs that nobody may ask for as a set).
final class ObjectIDList: Sendable {
    private let ids: [ManagedObjectID]
    private let cached: Mutex<Set<ManagedObjectID>?>

    init(_ ids: [ManagedObjectID]) {
        self.ids = ids
        cached = Mutex(ids.isEmpty ? [] : nil)
    }

    init(_ set: Set<ManagedObjectID>) {
        ids = Array(set)
        cached = Mutex(set)
    }

    var isEmpty: Bool { ids.isEmpty }

    var set: Set<ManagedObjectID> {
        cached.withLock { cached in
            if let cached { return cached }
            let set = Set(ids)
            cached = set
            return set
        }
    }
}
