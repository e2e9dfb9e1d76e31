/// Hands the rows of a bulk to-many load (``ManagedObjectContext/loadToMany(_:of:asFaults:)``)
/// to their sources.
///
/// The rows arrive ordered by their source's primary key, so the sources, sorted the same
/// way, are walked alongside them: each source gets its members when the next source's rows
/// begin, and sources passed over have none. A source's members gather in arrays handed to
/// it; the next source's begin with the same capacity.
final class ToManyGathering {
    /// The sources' primary keys, ascending and distinct.
    let keys: [Int64]
    private let sources: [ManagedObject]
    private let index: Int
    /// The next source not yet given its members.
    @exclusivity(unchecked) private var next = 0
    @exclusivity(unchecked) private var ids: [ManagedObjectID] = []
    @exclusivity(unchecked) private var members: [ManagedObject] = []

    /// Sources of one store and entity hierarchy, none holding the relationship at `index`.
    init(sources: [ManagedObject], index: Int) {
        var sorted = sources.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
        // The same object listed twice is loaded once.
        var last: Int64?
        sorted.removeAll { source in
            defer { last = source.objectID.primaryKey }
            return source.objectID.primaryKey == last
        }
        self.sources = sorted
        self.keys = sorted.map(\.objectID.primaryKey)
        self.index = index
    }

    /// One destination row of the source whose key is `source`.
    func add(_ id: ManagedObjectID, member: ManagedObject, source: Int64) {
        if next < keys.count, keys[next] != source {
            flush()
            // Sources before this row's have no members.
            while next < keys.count, keys[next] < source {
                sources[next].setLoadedToMany([], at: index)
                next += 1
            }
        }
        ids.append(id)
        members.append(member)
    }

    /// Gives the last source its members, and the sources after it none.
    func finish() {
        flush()
        while next < keys.count {
            sources[next].setLoadedToMany([], at: index)
            next += 1
        }
    }

    /// Gives the gathered members to the current source.
    private func flush() {
        guard !ids.isEmpty else { return }
        if next < keys.count {
            sources[next].setLoadedToMany(Array(ids), members: Array(members), at: index)
            next += 1
        }
        ids.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
    }
}
