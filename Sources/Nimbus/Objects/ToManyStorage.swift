/// The last value a to-many relationship gave, per relationship, kept while the
/// relationship's members are unchanged: reading `post.comments` again builds no new `Set`
/// and looks no member up again (docs/decisions/0021).
///
/// Members live in the object's values as an array of IDs, which is replaced (never changed
/// in place while it is shared) whenever the relationship changes. A cached value remembers
/// the array it was built from; the same storage (same address and count) means the same
/// members, so the check costs no comparison of IDs.
///
/// A bulk load (prefetching, batched to-many faults) hands over the member objects it
/// registered, so the first read builds its value from them without looking them up.
struct ToManyValueCache {
    private enum Built {
        /// Members as a bulk load registered them, in the order of their IDs.
        case members([ManagedObject])
        /// The value given: `Set<ManagedObject>`, or `[ManagedObject]` when ordered.
        case value(Any)
    }

    private var entries = PropertyIndexMap<(ids: [ManagedObjectID], built: Built)>()

    /// The value for the relationship at `index` with members `ids`, if still current: the
    /// one given last, or one made from the objects a bulk load left.
    mutating func value(at index: Int, for ids: [ManagedObjectID], ordered: Bool) -> Any? {
        guard let entry = entries[index], Self.sameStorage(entry.ids, ids) else { return nil }
        switch entry.built {
        case let .value(value):
            return value
        case let .members(objects):
            let value: Any = ordered ? objects : Set(objects)
            entries[index] = (ids, .value(value))
            return value
        }
    }

    mutating func store(_ value: Any, at index: Int, for ids: [ManagedObjectID]) {
        entries[index] = (ids, .value(value))
    }

    /// Keeps the member objects of a relationship just loaded with `ids` (same order).
    mutating func store(members objects: [ManagedObject], at index: Int, for ids: [ManagedObjectID]) {
        entries[index] = (ids, .members(objects))
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
        if let cached = toManyValues.value(at: index, for: ids, ordered: ordered) { return cached }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        for id in ids { objects.append(context.object(with: id)) }
        let value: Any = ordered ? objects : Set(objects)
        toManyValues.store(value, at: index, for: ids)
        return value
    }
}
