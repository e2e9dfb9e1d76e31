/// The last value a to-many relationship gave, per relationship, kept while the
/// relationship's members are unchanged: reading `post.comments` again builds no new `Set`
/// and looks no member up again (docs/decisions/0021).
///
/// Members live in the object's values as an array of IDs, which is replaced (never changed
/// in place while it is shared) whenever the relationship changes. A cached value remembers
/// the array it was built from; the same storage (same address and count) means the same
/// members, so the check costs no comparison of IDs.
struct ToManyValueCache {
    private var entries: [(index: Int, ids: [ManagedObjectID], value: Any)] = []

    /// The value built from `ids` for the relationship at `index`, if it is still current.
    func value(at index: Int, for ids: [ManagedObjectID]) -> Any? {
        for entry in entries where entry.index == index {
            return Self.sameStorage(entry.ids, ids) ? entry.value : nil
        }
        return nil
    }

    mutating func store(_ value: Any, at index: Int, for ids: [ManagedObjectID]) {
        if let position = entries.firstIndex(where: { $0.index == index }) {
            entries[position] = (index, ids, value)
        } else {
            entries.append((index, ids, value))
        }
    }

    var isEmpty: Bool { entries.isEmpty }

    private static func sameStorage(_ a: [ManagedObjectID], _ b: [ManagedObjectID]) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }
}

extension ManagedObject {
    /// A to-many relationship's members as objects: `[ManagedObject]` when ordered,
    /// `Set<ManagedObject>` otherwise; built once per change of its members.
    func toManyValue(_ ids: [ManagedObjectID], at index: Int, ordered: Bool, context: ManagedObjectContext) -> Any {
        if let cached = toManyValues.value(at: index, for: ids) { return cached }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        for id in ids { objects.append(context.object(with: id)) }
        let value: Any = ordered ? objects : Set(objects)
        toManyValues.store(value, at: index, for: ids)
        return value
    }
}
