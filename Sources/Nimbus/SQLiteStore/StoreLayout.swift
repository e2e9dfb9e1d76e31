import Foundation
import GRDB

/// How a store file's tables and columns meet the layout its model implies
/// (``StoreSchema``): compatibility by schema, for stores whose version hashes are not
/// Nimbus's (written by Apple's Core Data) and for Nimbus stores written before Nimbus took
/// Core Data's names (decision 0120).
///
/// Some names are Core Data's free choice and differ between stores of one model: which side
/// of a many-to-many relationship between an entity and itself names the join table, which
/// colliding join column gets the `1`, which entity number a to-one's entity column carries.
/// Where the expected name is missing and one of those alternatives is there, the layout
/// records an alias; what is missing with no alternative is a difference.
package struct StoreLayout: Sendable, Equatable {
    /// Expected table name to the file's table name, where they differ.
    package var tableAliases: [String: String] = [:]
    /// Expected table name to (expected column, the file's column or nil when absent and
    /// read as NULL: an order column Nimbus did not write before).
    package var columnAliases: [String: [String: String?]] = [:]

    /// Whether the file has exactly the expected names.
    package var isExact: Bool { tableAliases.isEmpty && columnAliases.isEmpty }

    /// One thing the model needs that the file lacks, or has with another type.
    package struct Difference: Sendable, Equatable, CustomStringConvertible {
        package var entity: String?
        package var table: String
        package var column: String?
        package var expectedType: String?
        package var foundType: String?

        package var description: String {
            let owner = entity.map { "\($0) (table \(table))" } ?? "join table \(table)"
            guard let column else { return "\(owner) is missing" }
            if let foundType { return "\(owner) column \(column) is \(foundType), the model needs \(expectedType ?? "?")" }
            return "\(owner) has no column \(column)"
        }
    }

    /// Compares the file with the schema of `model` and returns the aliases that make it
    /// readable.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/modelMismatch`` naming every entity, column and
    ///   type that differs.
    package static func resolve(_ db: Database, model: ManagedObjectModel, configuration: String?, path: String) throws -> StoreLayout {
        let (layout, differences) = try compare(db, model: model, configuration: configuration)
        guard differences.isEmpty else {
            throw NimbusError(.modelMismatch, "the store at \(path) does not have the tables the model needs: "
                              + differences.map(\.description).joined(separator: "; "))
        }
        return layout
    }

    /// The aliases found and the differences left.
    package static func compare(_ db: Database, model: ManagedObjectModel, configuration: String?) throws -> (StoreLayout, [Difference]) {
        let schema = model.schema
        var actual: [String: [String: String]] = [:]   // table -> column -> declared type
        for name in try String.fetchAll(db, sql: "SELECT name FROM main.sqlite_master WHERE type = 'table'") {
            var columns: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(name.quotedDatabaseIdentifier))") {
                columns[row["name"]] = (row["type"] as String? ?? "").uppercased()
            }
            actual[name] = columns
        }
        var layout = StoreLayout()
        var differences: [Difference] = []
        let stored = Set(model.entities(forConfiguration: configuration).map { $0.rootEntity.name })

        for table in schema.tables where stored.contains(table.rootEntityName) {
            guard let found = actual[table.name] else {
                differences.append(Difference(entity: table.rootEntityName, table: table.name))
                continue
            }
            let expected = Set(table.columns.map(\.name))
            for (column, type) in table.columns {
                if let foundType = found[column] {
                    if foundType != type.uppercased() {
                        differences.append(Difference(entity: owner(of: column, in: table, model: model), table: table.name,
                                                      column: column, expectedType: type, foundType: foundType))
                    }
                } else if let alias = entityColumnAlias(column, among: found, expected: expected) {
                    layout.columnAliases[table.name, default: [:]][column] = .some(alias)
                } else if column.hasPrefix("Z_FOK_") {
                    layout.columnAliases[table.name, default: [:]][column] = .some(nil)
                } else {
                    differences.append(Difference(entity: owner(of: column, in: table, model: model), table: table.name,
                                                  column: column, expectedType: type))
                }
            }
        }

        // Entity numbers: rows of Z_PRIMARYKEY, as Z_ENT values in the tables.
        if actual["Z_PRIMARYKEY"] != nil {
            var numbers: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME FROM main.Z_PRIMARYKEY") {
                if let name = row["Z_NAME"] as String?, let number = row["Z_ENT"] as Int? { numbers[name] = number }
            }
            for entity in model.entities(forConfiguration: configuration) {
                let table = schema.mapping(for: entity).table
                guard let number = numbers[entity.name] else {
                    differences.append(Difference(entity: entity.name, table: table, column: "Z_ENT",
                                                  expectedType: "entity number \(entity.entityNumber) in Z_PRIMARYKEY"))
                    continue
                }
                if number != entity.entityNumber {
                    differences.append(Difference(entity: entity.name, table: table, column: "Z_ENT",
                                                  expectedType: "entity number \(entity.entityNumber)", foundType: "entity number \(number)"))
                }
            }
        }

        let expectedTables = Set(schema.tables.map(\.name) + schema.joinTables.map(\.name))
        var claimed: Set<String> = []
        for join in schema.joinTables {
            let keyColumns = [join.firstColumn, join.secondColumn]
            func match(_ name: String) -> [String: String?]? {
                guard let columns = actual[name] else { return nil }
                var aliases: [String: String?] = [:]
                var used: Set<String> = []
                for column in keyColumns {
                    if columns[column] != nil, !used.contains(column) { used.insert(column); continue }
                    guard let alias = joinColumnAlias(column, among: columns, excluding: used.union(keyColumns.filter { $0 != column })) else { return nil }
                    used.insert(alias)
                    aliases[column] = .some(alias)
                }
                for column in join.orderColumns where columns[column] == nil { aliases[column] = .some(nil) }
                return aliases
            }
            if let aliases = match(join.name) {
                claimed.insert(join.name)
                if !aliases.isEmpty { layout.columnAliases[join.name] = aliases }
                continue
            }
            let candidates = actual.keys.sorted().filter { $0.hasPrefix("Z_") && !expectedTables.contains($0) && !claimed.contains($0) }
            if let other = candidates.first(where: { match($0) != nil }), let aliases = match(other) {
                claimed.insert(other)
                layout.tableAliases[join.name] = other
                if !aliases.isEmpty { layout.columnAliases[join.name] = aliases }
            } else {
                differences.append(Difference(table: join.name))
            }
        }
        return (layout, differences)
    }

    /// `Z<n>_<REL>` under another entity number.
    private static func entityColumnAlias(_ column: String, among found: [String: String], expected: Set<String>) -> String? {
        guard column.hasPrefix("Z"), let underscore = column.firstIndex(of: "_"),
              column[column.index(after: column.startIndex)..<underscore].allSatisfy(\.isNumber),
              underscore > column.index(after: column.startIndex) else { return nil }
        let suffix = column[underscore...]
        return found.keys.sorted().first { name in
            !expected.contains(name) && name.hasPrefix("Z") && name.hasSuffix(suffix) && name.count > suffix.count + 1
                && name.dropFirst().dropLast(suffix.count).allSatisfy(\.isNumber)
        }
    }

    /// A join column with or without a number appended.
    private static func joinColumnAlias(_ column: String, among found: [String: String], excluding: Set<String>) -> String? {
        var base = Substring(column)
        let stripped = base.prefix { _ in true }.reversed().drop { $0.isNumber }
        if let last = stripped.first, last.isLetter { base = base.prefix(stripped.count) }
        let candidates = [String(base)] + (1...9).map { String(base) + String($0) }
        return candidates.first { $0 != column && found[$0] != nil && !excluding.contains($0) }
    }

    /// The entity of a table's hierarchy declaring a column (for messages).
    private static func owner(of column: String, in table: StoreSchema.Table, model: ManagedObjectModel) -> String {
        for entity in model.entities where entity.rootEntity.name == table.rootEntityName {
            let mapping = model.schema.mapping(for: entity)
            for (index, storage) in mapping.storage.enumerated() {
                switch storage {
                case let .column(name) where name == column:
                    return "\(entity.name).\(entity.properties[index].name)"
                case let .foreignKey(name, entityColumn) where name == column || entityColumn == column:
                    return "\(entity.name).\(entity.properties[index].name)"
                default: continue
                }
            }
        }
        return table.rootEntityName
    }
}
