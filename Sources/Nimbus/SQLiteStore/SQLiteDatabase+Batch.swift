import Foundation
import GRDB

extension SQLiteDatabase {
    /// Inserts the rows `next` gives until it gives nil, in one transaction, holding nothing
    /// but the current row (and the new IDs when `keepsIDs` or history needs them). Keys are
    /// taken one after another from `Z_PRIMARYKEY` (the write lock keeps them ours) and
    /// recorded there once, at the end. An error thrown by `next` rolls everything back.
    func batchInsert(entity: EntityDescription, author: String?, contextName: String?, history: Bool, keepsIDs: Bool,
                     next: () throws -> [PropertyValue]?) throws -> (count: Int, ids: [ManagedObjectID]) {
        try write { db in
            let root = entity.rootEntityNumber
            let first = try HistoryStore.reserve(root, count: 0, db) + 1
            var key = first
            let plan = insertPlans[entity.entityNumber - 1]
            let statement = try db.cachedStatement(sql: plan.sql)
            var ids: [ManagedObjectID] = []
            let keeps = keepsIDs || history
            while let values = try next() {
                // Bound through SQLite's C API with checked results, as a save's inserts are
                // (GRDB's binding traps on values of 2 GiB).
                statement.setUncheckedArguments(StatementArguments())
                let handle = statement.sqliteStatement
                var position: Int32 = 1
                try SQLiteBinding.bind(.integer(key), to: handle, at: &position)
                try SQLiteBinding.bind(.integer(Int64(entity.entityNumber)), to: handle, at: &position)
                try SQLiteBinding.bind(.integer(1), to: handle, at: &position)
                for item in plan.items {
                    switch item {
                    case let .value(index): try SQLiteBinding.bind(values[index], to: handle, at: &position)
                    case let .foreignKey(_, hasEntityColumn):
                        try SQLiteBinding.bind(.null, to: handle, at: &position)
                        if hasEntityColumn { try SQLiteBinding.bind(.null, to: handle, at: &position) }
                    }
                }
                try statement.execute()
                if keeps { ids.append(ManagedObjectID(entity: entity, storeKey: storeKey, primaryKey: key)) }
                key += 1
            }
            let count = Int(key - first)
            guard count > 0 else { return (0, []) }
            _ = try HistoryStore.reserve(root, count: count, db)
            if history { try HistoryStore.record(ids.map { .init(type: .insert, id: $0) }, author: author, contextName: contextName, db) }
            return (count, ids)
        }
    }

    /// Updates matching rows in one statement (after selecting their IDs when history or the
    /// result needs them).
    func batchUpdate(_ query: SelectQuery, assignments: [(column: String, sql: String, arguments: [DatabaseValue], index: Int)],
                     wantIDs: Bool, author: String?, contextName: String?, history: Bool) throws -> BatchResult {
        let reader = reader(for: query.entity)
        if externalDataFolder != nil, let index = assignments.map(\.index).first(where: ExternalStorage.indexes(of: query.entity).contains) {
            throw NimbusError(.unsupported, "a batch update cannot set \(query.entity.name).\(query.entity.properties[index].name), which allows external storage; set it on the objects in a context")
        }
        let set = (["Z_OPT = Z_OPT + 1"] + assignments.map { "\($0.column.quotedDatabaseIdentifier) = \($0.sql)" }).joined(separator: ", ")
        let setArguments = assignments.flatMap(\.arguments)
        return try write { db in
            var result = BatchResult()
            var ids: [ManagedObjectID] = []
            if wantIDs || history { ids = try fetchIDs(query, db) }
            // Rows are visited in primary-key order (an IN over the matching keys) rather than
            // in the order an index on the condition yields them: far fewer page writes.
            let sql = "UPDATE \(reader.table.quotedDatabaseIdentifier) AS t0 SET \(set) WHERE t0.Z_PK IN (SELECT t0.Z_PK \(query.fromClause(reader: reader)) ORDER BY t0.Z_PK)"
            try db.execute(sql: sql, arguments: StatementArguments(setArguments + query.arguments))
            result.count = db.changesCount
            if wantIDs { result.objectIDs = ids }
            if history {
                let columns = assignments.map(\.index).sorted()
                try HistoryStore.record(ids.map { .init(type: .update, id: $0, columns: columns) }, author: author, contextName: contextName, db)
            }
            return result
        }
    }

    enum DeleteTarget {
        case query(SelectQuery)
        case ids([ManagedObjectID])
    }

    /// Deletes rows with their delete rules applied set-wise, in one transaction.
    func batchDelete(_ target: DeleteTarget, wantIDs: Bool, author: String?, contextName: String?, history: Bool) throws -> BatchResult {
        // Files of deleted rows go once the deletion commits (never when it rolls back).
        var obsolete: [String] = []
        let result = try write { db in
            obsolete = []
            // Fast path: one statement when no relationship needs work and no IDs are needed.
            if case let .query(query) = target, !wantIDs, !history, !needsRelationshipWork(query.entity), !usesExternalStorage {
                let reader = reader(for: query.entity)
                let sql = "DELETE FROM \(reader.table.quotedDatabaseIdentifier) WHERE Z_PK IN (SELECT t0.Z_PK \(query.fromClause(reader: reader)) ORDER BY t0.Z_PK)"
                try db.execute(sql: sql, arguments: StatementArguments(query.arguments))
                return BatchResult(status: true, count: db.changesCount)
            }
            let initial: [ManagedObjectID]
            switch target {
            case let .query(query): initial = try fetchIDs(query, db)
            case let .ids(ids): initial = try existing(ids, db)
            }
            let doomed = try cascade(from: initial, db)
            try checkDeny(doomed, db)
            var tombstones: [ManagedObjectID: [String: PropertyValue]] = [:]
            if history { tombstones = try self.tombstones(for: doomed, db) }
            for (entityNumber, group) in Dictionary(grouping: doomed, by: { $0.entity.entityNumber }) {
                guard let entity = model.entity(number: entityNumber) else { continue }
                obsolete += try externalFiles(of: entity, keys: group.map(\.primaryKey), db)
                try deleteRows(entity: entity, keys: group.map(\.primaryKey), db)
            }
            if history {
                try HistoryStore.record(doomed.map { .init(type: .delete, id: $0, tombstone: tombstones[$0] ?? [:]) },
                                       author: author, contextName: contextName, db)
            }
            return BatchResult(status: true, count: initial.count, objectIDs: wantIDs ? initial : [])
        }
        removeExternalFiles(obsolete)
        return result
    }

    private func needsRelationshipWork(_ entity: EntityDescription) -> Bool {
        for number in entity.entityNumbersInHierarchy {
            guard let e = model.entity(number: number) else { continue }
            let mapping = schema.mapping(for: e)
            for (index, property) in e.properties.enumerated() {
                guard let relationship = property.relationship, !relationship.isTransient else { continue }
                if relationship.deleteRule != .noAction { return true }
                if case .joinTable = mapping.storage[index] { return true }
            }
        }
        return false
    }

    private func existing(_ ids: [ManagedObjectID], _ db: Database) throws -> [ManagedObjectID] {
        var result: [ManagedObjectID] = []
        for (root, group) in Dictionary(grouping: ids, by: { $0.entity.rootEntityNumber }) {
            guard let rootEntity = model.entity(number: root) else { continue }
            let rootReader = reader(for: rootEntity)
            for chunk in stride(from: 0, to: group.count, by: 500) {
                let keys = group[chunk..<min(chunk + 500, group.count)].map { String($0.primaryKey) }.joined(separator: ",")
                for row in try Row.fetchAll(db, sql: "SELECT Z_PK, Z_ENT FROM \(rootReader.table.quotedDatabaseIdentifier) WHERE Z_PK IN (\(keys))") {
                    result.append(try objectID(ofRow: row, reader: rootReader))
                }
            }
        }
        return result
    }

    /// The rows to delete: the given ones and, following cascade rules, their destinations.
    private func cascade(from initial: [ManagedObjectID], _ db: Database) throws -> [ManagedObjectID] {
        var doomed = Set(initial)
        var queue = initial
        while !queue.isEmpty {
            let batch = queue
            queue = []
            for (entityNumber, group) in Dictionary(grouping: batch, by: { $0.entity.entityNumber }) {
                guard let entity = model.entity(number: entityNumber) else { continue }
                for (index, property) in entity.properties.enumerated() where property.relationship?.deleteRule == .cascade {
                    for destination in try destinations(of: group, entity: entity, index: index, db) where doomed.insert(destination).inserted {
                        queue.append(destination)
                    }
                }
            }
        }
        return Array(doomed)
    }

    private func checkDeny(_ doomed: [ManagedObjectID], _ db: Database) throws {
        let doomedSet = Set(doomed)
        for (entityNumber, group) in Dictionary(grouping: doomed, by: { $0.entity.entityNumber }) {
            guard let entity = model.entity(number: entityNumber) else { continue }
            for (index, property) in entity.properties.enumerated() where property.relationship?.deleteRule == .deny {
                let blocking = try destinations(of: group, entity: entity, index: index, db).filter { !doomedSet.contains($0) }
                if !blocking.isEmpty {
                    throw NimbusError(.deleteDenied, "delete denied: \(entity.name).\(property.name) still holds \(blocking.count) object(s)")
                }
            }
        }
    }

    /// Destinations of one relationship for many source rows.
    private func destinations(of sources: [ManagedObjectID], entity: EntityDescription, index: Int, _ db: Database) throws -> [ManagedObjectID] {
        var result: [ManagedObjectID] = []
        for source in sources { result += try destinations(of: source, relationshipIndex: index, db) }
        if case .foreignKey = schema.mapping(for: entity).storage[index] {
            for source in sources {
                if let snapshot = try snapshot(for: source, db), case let .object(id) = snapshot.values[index] { result.append(id) }
            }
        }
        return result
    }

    private func tombstones(for ids: [ManagedObjectID], _ db: Database) throws -> [ManagedObjectID: [String: PropertyValue]] {
        var result: [ManagedObjectID: [String: PropertyValue]] = [:]
        for id in ids where id.entity.properties.contains(where: { $0.attribute?.preservesValueInHistoryOnDeletion == true }) {
            guard let snapshot = try snapshot(for: id, db) else { continue }
            var tombstone: [String: PropertyValue] = [:]
            for (index, property) in id.entity.properties.enumerated() where property.attribute?.preservesValueInHistoryOnDeletion == true {
                tombstone[property.name] = snapshot.values[index]
            }
            result[id] = tombstone
        }
        return result
    }

    /// Deletes rows of one entity, clearing join rows and nullifying inverse foreign keys.
    private func deleteRows(entity: EntityDescription, keys: [Int64], _ db: Database) throws {
        let mapping = schema.mapping(for: entity)
        for chunk in stride(from: 0, to: keys.count, by: 500) {
            let list = keys[chunk..<min(chunk + 500, keys.count)].map(String.init).joined(separator: ",")
            for (index, storage) in mapping.storage.enumerated() {
                guard let relationship = entity.properties[index].relationship else { continue }
                switch storage {
                case let .joinTable(join, sourceColumn, _, _):
                    try db.execute(sql: "DELETE FROM \(join.name.quotedDatabaseIdentifier) WHERE \(sourceColumn.quotedDatabaseIdentifier) IN (\(list))")
                case let .inverseForeignKey(table, column, entityColumn, _) where relationship.deleteRule != .noAction:
                    let clearEntity = entityColumn.map { ", \($0.quotedDatabaseIdentifier) = NULL" } ?? ""
                    try db.execute(sql: "UPDATE \(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = NULL\(clearEntity), Z_OPT = Z_OPT + 1 WHERE \(column.quotedDatabaseIdentifier) IN (\(list))")
                case .foreignKey where relationship.deleteRule != .noAction:
                    // A one-to-one: the partner's own foreign key points back here.
                    guard let destination = entity.destination(of: relationship), let inverse = entity.inverse(of: relationship),
                          let inverseIndex = destination.propertyIndexes[inverse.name], !inverse.isToMany,
                          case let .foreignKey(column, entityColumn) = schema.mapping(for: destination).storage[inverseIndex] else { continue }
                    let clearEntity = entityColumn.map { ", \($0.quotedDatabaseIdentifier) = NULL" } ?? ""
                    let table = schema.mapping(for: destination).table
                    try db.execute(sql: "UPDATE \(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = NULL\(clearEntity), Z_OPT = Z_OPT + 1 WHERE \(column.quotedDatabaseIdentifier) IN (\(list))")
                default:
                    continue
                }
            }
            try db.execute(sql: "DELETE FROM \(mapping.table.quotedDatabaseIdentifier) WHERE Z_PK IN (\(list))")
        }
    }
}
