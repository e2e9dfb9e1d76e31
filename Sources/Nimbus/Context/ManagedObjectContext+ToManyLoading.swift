import Foundation
import GRDB

extension ManagedObjectContext {
    /// Loads one to-many relationship of many objects with one statement per store (per
    /// ``SQLiteDatabase/sourceKeysPerStatement`` objects), and registers the destinations'
    /// rows in bulk: as loaded objects, or as faults holding their row (`asFaults`), which
    /// fire without another read.
    ///
    /// Objects that already hold the relationship, new objects, and faults whose row is not
    /// at hand are left out (they load on their own when touched). Only for contexts on a
    /// coordinator (a nested context reads through its parent).
    func loadToMany(_ index: Int, of sources: some Sequence<ManagedObject>, asFaults: Bool) throws {
        guard parent == nil else { return }
        // By store key: the usual case is one store, so one group.
        var groups: [UInt32: (entity: EntityDescription, sources: [ManagedObject])] = [:]
        for source in sources where !source.objectID.isTemporaryID && source.managedObjectContext === self {
            if source.values == nil {
                guard source.committed != nil else { continue }
                try source.fireFault()
            }
            guard !source.loadedToMany.contains(index) else { continue }
            groups[source.objectID.storeKey, default: (source.entity, [])].sources.append(source)
        }
        for entry in groups.values where !entry.sources.isEmpty {
            let store = try persistentStoreCoordinator.store(for: entry.sources[0].objectID)
            // Rows come ordered by their source's key: the sources, in that order, are walked
            // alongside them (no lookup per source).
            let gathering = ToManyGathering(sources: entry.sources, index: index)
            var awakened: [ManagedObject] = []
            registry.suspendSweeps()
            defer { registry.resumeSweeps() }
            let read = try self.read(store) { db in
                try store.database.forEachDestination(of: gathering.keys, entity: entry.entity, relationshipIndex: index, db) { key, id, snapshot in
                    gathering.add(id, member: try materialize(id, asFault: asFaults, awakened: &awakened, row: snapshot), source: key)
                }
            }
            if read { gathering.finish() }
            for object in awakened { object.awakeFromFetch() }
        }
    }

    /// Fires a to-many fault of `object`, with those of the objects fetched after it when
    /// the app walks a fetch's results in order (see ``ToManyFaultBatcher``).
    func fireToManyFault(of object: ManagedObject, at index: Int) throws {
        guard parent == nil else { return }
        let batch = toManyFaultBatcher.batch(for: object.objectID, relationship: index)
        if batch.count > 1 {
            // Objects the app dropped since (and the registry let go) are left out.
            try loadToMany(index, of: batch.lazy.compactMap { self.registry[$0] }.filter { $0.entity === object.entity }, asFaults: true)
        } else {
            try loadToMany(index, of: CollectionOfOne(object), asFaults: true)
        }
    }

    // MARK: Prefetching

    /// Loads the destinations of relationship key paths for many objects: each level of a
    /// key path in one statement per store (to-many) or per 500 rows (to-one faults).
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws {
        for keyPath in keyPaths {
            var current = objects
            let names = keyPath.split(separator: ".").map(String.init)
            for (level, name) in names.enumerated() {
                let isLast = level == names.count - 1
                try fireFaultsInBulk(current)
                var next: [ManagedObjectID] = []
                var toMany: [Int: [ManagedObject]] = [:]
                for object in current {
                    guard let index = object.entity.propertyIndexes[name], let relationship = object.entity.properties[index].relationship else {
                        throw NimbusError(.unknownProperty, "\(object.entity.name) has no relationship \(name) (prefetch key path \(keyPath))")
                    }
                    if relationship.isToMany {
                        toMany[index, default: []].append(object)
                    } else if case let .object(id) = object.values?[index] {
                        next.append(id)
                    }
                }
                for (index, group) in toMany {
                    try loadToMany(index, of: group, asFaults: false)
                    for object in group {
                        try object.loadToManyIfNeeded(index)
                        if !isLast, case let .objects(ids) = object.values![index] { next += ids }
                    }
                }
                if isLast && next.isEmpty { break }
                var seen = Set<ManagedObjectID>(minimumCapacity: next.count)
                let unique = next.filter { seen.insert($0).inserted }
                try loadSnapshots(for: unique.filter { registry[$0]?.isFault ?? true })
                current = unique.map { object(with: $0) }
            }
        }
    }

    /// Gives rows to the faults among `objects`: those holding their row at once, the
    /// others with one statement per 500.
    func fireFaultsInBulk(_ objects: [ManagedObject]) throws {
        var unread: [ManagedObjectID] = []
        for object in objects where object.values == nil {
            if object.committed != nil { try object.fireFault() } else { unread.append(object.objectID) }
        }
        guard !unread.isEmpty else { return }
        try loadSnapshots(for: unread)
        for object in objects where object.values == nil { try object.fireFault() }
    }
}

extension ManagedObject {
    /// Records the store's members of a to-many relationship as loaded; `members` are their
    /// objects when the caller has them at hand (same order as `ids`).
    func setLoadedToMany(_ ids: [ManagedObjectID], members: [ManagedObject]? = nil, at index: Int) {
        values![index] = .objects(ids)
        committedToMany[index] = ids
        loadedToMany.insert(index)
        if let members { toManyValues.store(members: members, at: index, for: ids) }
    }
}

/// Fires to-many faults in batches when the app walks the results of a fetch in order, as
/// Core Data's `fetchBatchSize` does for rows (docs/decisions/0021).
///
/// The context keeps the IDs (not the objects: objects the app drops are still let go) of its
/// last fetch whose entity has to-many relationships. The first to-many fault fired among them
/// loads one object's relationship; when the next one fired is the object right after the last
/// batch, the batch grows (16, 64, 256, up to 1,024 objects, or the request's
/// `fetchBatchSize`), so walking 20,000 posts reading their comments costs a handful of
/// statements, and touching one object still reads only its own.
final class ToManyFaultBatcher {
    private var ids: [ManagedObjectID] = []
    private var positions: [ManagedObjectID: Int]?
    private var fixedBatchSize = 0
    /// The last batch: relationship, where it ended, its size.
    private var last: (relationship: Int, end: Int, size: Int)?
    static let largestBatch = 1_024

    /// Remembers a fetch's results (replacing the previous ones).
    func remember(_ objects: [ManagedObject], fetchBatchSize: Int) {
        ids = objects.map(\.objectID)
        positions = nil
        fixedBatchSize = fetchBatchSize
        last = nil
    }

    /// Forgets the remembered results (the context was reset).
    func forget() { remember([], fetchBatchSize: 0) }

    /// The IDs whose relationship to load with `id`'s (`id` first).
    func batch(for id: ManagedObjectID, relationship: Int) -> ArraySlice<ManagedObjectID> {
        guard !ids.isEmpty, let position = position(of: id) else { return [id] }
        var size = 1
        if fixedBatchSize > 0 {
            size = fixedBatchSize
        } else if let last, last.relationship == relationship, position >= last.end, position <= last.end + 1 {
            size = min(last.size == 1 ? 16 : last.size * 4, Self.largestBatch)
        }
        let end = min(position + size, ids.count)
        last = (relationship, end, size)
        return ids[position..<end]
    }

    private func position(of id: ManagedObjectID) -> Int? {
        if let last, last.end < ids.count, ids[last.end] == id { return last.end }
        if positions == nil {
            var made: [ManagedObjectID: Int] = [:]
            made.reserveCapacity(ids.count)
            for (position, id) in ids.enumerated() { made[id] = position }
            positions = made
        }
        return positions![id]
    }
}
