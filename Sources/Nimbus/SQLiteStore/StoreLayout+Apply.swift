import Foundation
import GRDB

extension StoreLayout {
    /// `CREATE TEMP VIEW` statements that show the file's tables under the expected names, so
    /// a read-only connection reads through the aliases without changing the file (a view in
    /// the `temp` schema hides the `main` table of its name).
    package var viewStatements: [String] {
        let tables = Set(tableAliases.keys).union(columnAliases.keys).sorted()
        return tables.map { expected in
            let source = tableAliases[expected] ?? expected
            let extra = (columnAliases[expected] ?? [:]).sorted { $0.key < $1.key }.map { column, alias in
                (alias.map { $0.quotedDatabaseIdentifier } ?? "NULL") + " AS " + column.quotedDatabaseIdentifier
            }
            let list = (["*"] + extra).joined(separator: ", ")
            return "CREATE TEMP VIEW \(expected.quotedDatabaseIdentifier) AS SELECT \(list) FROM main.\(source.quotedDatabaseIdentifier)"
        }
    }

    /// Renames the file's tables and columns to the expected names, and adds the order
    /// columns it lacks (the inverse order of an ordered many-to-many relationship gets the
    /// order Nimbus read it in before: by key). For Nimbus's own stores only: Apple's Core
    /// Data looks its tables up by the names it chose.
    package func upgrade(_ db: Database, schema: StoreSchema) throws {
        // Tables first, through temporary names, so that two tables may trade names.
        let renames = tableAliases.sorted { $0.key < $1.key }
        for (index, (_, source)) in renames.enumerated() {
            try db.execute(sql: "ALTER TABLE main.\(source.quotedDatabaseIdentifier) RENAME TO \("NIMBUS_LAYOUT_\(index)".quotedDatabaseIdentifier)")
        }
        for (index, (expected, _)) in renames.enumerated() {
            try db.execute(sql: "ALTER TABLE main.\("NIMBUS_LAYOUT_\(index)".quotedDatabaseIdentifier) RENAME TO \(expected.quotedDatabaseIdentifier)")
        }
        let joins = Dictionary(schema.joinTables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for (table, columns) in columnAliases.sorted(by: { $0.key < $1.key }) {
            for (column, alias) in columns.sorted(by: { $0.key < $1.key }) {
                if let alias {
                    try db.execute(sql: "ALTER TABLE main.\(table.quotedDatabaseIdentifier) RENAME COLUMN \(alias.quotedDatabaseIdentifier) TO \(column.quotedDatabaseIdentifier)")
                } else {
                    try db.execute(sql: "ALTER TABLE main.\(table.quotedDatabaseIdentifier) ADD COLUMN \(column.quotedDatabaseIdentifier) INTEGER")
                    if let join = joins[table], join.inverseOrderColumn == column {
                        try db.execute(sql: "UPDATE main.\(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = \(join.firstColumn.quotedDatabaseIdentifier)")
                    }
                }
            }
        }
    }
}

extension StoreLayout {
    /// The aliases, as text for messages: `Z_25TRUSTEDCLIENTS is Z_25TRUSTEDBYCLIENTS, …`.
    package var summary: String {
        var parts = tableAliases.sorted { $0.key < $1.key }.map { "table \($0.key) is \($0.value)" }
        for (table, columns) in columnAliases.sorted(by: { $0.key < $1.key }) {
            for (column, alias) in columns.sorted(by: { $0.key < $1.key }) {
                parts.append(alias.map { "\(table).\(column) is \($0)" } ?? "\(table).\(column) is missing")
            }
        }
        return parts.joined(separator: ", ")
    }

    /// The layout of the file at `path` (a path or an `immutable=1` URI), read-only.
    ///
    /// - Parameter reportingAs: the store's path for a ``NimbusError/Code-swift.struct/modelMismatch``
    ///   naming the differences; nil to return the aliases found and ignore differences.
    package static func read(path: String, model: ManagedObjectModel, configuration: String?, reportingAs: String?) throws -> StoreLayout {
        do {
            let queue = try StoreConnection.queue(path: path, readOnly: true)
            defer { try? queue.close() }
            return try queue.read { db in
                if let reportingAs { return try resolve(db, model: model, configuration: configuration, path: reportingAs) }
                return try compare(db, model: model, configuration: configuration).0
            }
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: reportingAs ?? path)
        }
    }

    /// Gives a Nimbus store written with earlier names the names of ``StoreSchema`` in one
    /// transaction; reads only when there is nothing to change.
    static func upgrade(path: String, model: ManagedObjectModel, configuration: String?, timeout: TimeInterval) throws {
        let layout = try read(path: path, model: model, configuration: configuration, reportingAs: nil)
        guard !layout.isExact else { return }
        do {
            let queue = try StoreConnection.queue(path: path, timeout: timeout)
            defer { try? queue.close() }
            try queue.write { db in
                // Read again inside the transaction: another process may have upgraded it.
                let (current, _) = try compare(db, model: model, configuration: configuration)
                try current.upgrade(db, schema: model.schema)
            }
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: path)
        }
    }
}
