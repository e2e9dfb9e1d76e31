import Foundation
import GRDB

extension ManagedObjectContext {
    /// Fetches dictionary results: properties, key paths and expressions, optionally
    /// grouped, filtered by a having predicate, and distinct. Reads saved data only.
    func fetchDictionaries<Result>(_ request: FetchRequest<Result>, entity: EntityDescription) throws -> [[String: Any]] {
        let properties = request.propertiesToFetch ?? entity.properties.compactMap { $0.attribute.map { .property($0.name) } }
        guard !properties.isEmpty else {
            throw NimbusError(.invalidArgument, "a dictionary fetch needs propertiesToFetch")
        }
        let stores = try self.stores(for: entity, affectedBy: request.affectedStores)
        if stores.count > 1 { return try fetchDictionaries(request, entity: entity, across: stores) }
        var results: [[String: Any]] = []
        for store in stores {
            var compiler = PredicateSQLCompiler(entity: entity, schema: managedObjectModel.schema)
            compiler.unavailableRTrees = store.database.unavailableRTrees
            var query = SelectQuery(entity: entity)
            query.includesSubentities = request.includesSubentities
            if let predicate = request.predicate { query.condition = try compiler.condition(predicate) }
            var columns: [String] = []
            var readers: [(name: String, read: (Row, Int) throws -> Any?)] = []
            for property in properties {
                let (sql, reader) = try selection(for: property, entity: entity, compiler: &compiler, store: store)
                columns.append(sql)
                readers.append((property.name, reader))
            }
            let groupBy = try (request.propertiesToGroupBy ?? []).map { try selection(for: $0, entity: entity, compiler: &compiler, store: store).sql }
            let selectArguments = compiler.arguments
            var having: String?
            if let predicate = request.havingPredicate {
                having = try compiler.havingCondition(predicate, aliases: Dictionary(uniqueKeysWithValues: zip(properties.map(\.name), columns)))
            }
            if !request.sortDescriptors.isEmpty { query.orderBy = try orderBy(request.sortDescriptors, properties: properties, entity: entity, compiler: &compiler) }
            query.arguments = selectArguments
            query.joins = compiler.joins
            if request.fetchLimit > 0 { query.limit = request.fetchLimit }
            if request.fetchOffset > 0 { query.offset = request.fetchOffset }
            let havingArguments = Array(compiler.arguments.dropFirst(selectArguments.count))
            let rows = try read(store) { db in
                try store.database.fetchRows(query, select: columns, groupBy: groupBy, having: having,
                                             havingArguments: havingArguments, distinct: request.returnsDistinctResults, db)
            }
            for row in rows {
                var dictionary: [String: Any] = [:]
                for (index, reader) in readers.enumerated() {
                    if let value = try reader.read(row, index) { dictionary[reader.name] = value }
                }
                results.append(dictionary)
            }
        }
        return results
    }

    /// The ORDER BY of a dictionary fetch: a sort by the name of a fetched expression (an
    /// aggregate, say) orders by that result column, the rest as object fetches do.
    private func orderBy(_ sorts: [FetchSortDescriptor], properties: [FetchProperty], entity: EntityDescription,
                         compiler: inout PredicateSQLCompiler) throws -> String {
        var terms: [String] = []
        for sort in sorts {
            guard entity.propertyIndexes[sort.keyPath] == nil,
                  let position = properties.firstIndex(where: { if case .expression = $0 { $0.name == sort.keyPath } else { false } }) else {
                terms.append(try compiler.orderBy([sort]))
                continue
            }
            // SQLite reads a bare integer in ORDER BY as the position of a result column
            // (also with a collation after it).
            var term = "\(position + 1)"
            switch sort.comparison {
            case .binary: break
            case .caseInsensitive: term += " COLLATE \(SQLFunctions.caseInsensitiveCollation)"
            case .localizedStandard: term += " COLLATE \(SQLFunctions.localizedCollation)"
            }
            terms.append(term + (sort.ascending ? "" : " DESC"))
        }
        return terms.joined(separator: ", ")
    }

    private func selection(for property: FetchProperty, entity: EntityDescription, compiler: inout PredicateSQLCompiler,
                           store: PersistentStore) throws -> (sql: String, read: (Row, Int) throws -> Any?) {
        switch property {
        case let .property(name):
            if let index = entity.propertyIndexes[name], let relationship = entity.properties[index].relationship {
                guard !relationship.isToMany,
                      case let .foreignKey(column, _) = managedObjectModel.schema.mapping(for: entity).storage[index],
                      let destination = entity.destination(of: relationship) else {
                    throw NimbusError(.invalidArgument, "\(entity.name).\(name) is to-many; fetch an expression such as \(name).@count instead")
                }
                let identifier = store.identifier
                return ("t0.\(column.quotedDatabaseIdentifier)", { row, i in
                    let stored: DatabaseValue = row[i]
                    guard !stored.isNull else { return nil }
                    guard let key = Int64.fromDatabaseValue(stored) else {
                        throw NimbusError(.corruptStore, "\(entity.name).\(name) holds \(stored), which is no primary key; "
                            + "the store was changed outside Nimbus: fix the row")
                    }
                    return ManagedObjectID(entity: destination, storeIdentifier: identifier, primaryKey: key)
                })
            }
            let (sql, type) = try compiler.expression(.keyPath(name.split(separator: ".").map(String.init)))
            if let folder = store.database.externalDataFolder, let attribute = entity.attributesByName[name],
               ExternalStorage.indexes(of: entity).contains(entity.propertyIndexes[name]!) {
                // A value that may live in a file (decision 0026): read past the marker or from the file.
                return (sql, { row, index in
                    let stored = PropertyValue(databaseValue: row[index], type: attribute.type)
                    return try ExternalStorage.decode(stored, folder: folder, owner: "\(entity.name).\(name)").anyValue(for: attribute.type, transformerName: attribute.valueTransformerName)
                })
            }
            return (sql, Self.reader(for: type))
        case let .expression(_, expression, type):
            let (sql, _) = try compiler.expression(expression)
            return (sql, Self.reader(for: type))
        }
    }

    private static func reader(for type: AttributeType?) -> (Row, Int) throws -> Any? {
        { row, index in
            let value: DatabaseValue = row[index]
            guard let type else { return value.isNull ? nil : value.storage.value }
            let converted = PropertyValue(databaseValue: value, type: type)
            // Integers are given as their attribute's type only when they fit (never truncated).
            if let range = type.integerRange {
                guard case let .integer(integer) = converted, range.contains(integer) else {
                    if converted.isNull { return nil }
                    throw NimbusError(.typeMismatch, "a fetched \(type.rawValue) value is \(value), which is not a whole number in "
                        + "the range of \(type.rawValue); update the row with a value in range, or fetch it with a wider type")
                }
            }
            return converted.anyValue(for: type)
        }
    }
}

private extension DatabaseValue.Storage {
    var value: Any? {
        switch self {
        case .null: nil
        case let .int64(v): v
        case let .double(v): v
        case let .string(v): v
        case let .blob(v): v
        }
    }
}
