import Foundation
import GRDB
import GRDBSQLite

/// Reads an entity's rows (its sub-entities' included) into snapshots.
///
/// Rows of a hierarchy share one table; the reader selects every column of the table and
/// maps them, per concrete entity, to the entity's properties.
struct EntityReader: Sendable {
    enum PropertyRead: Sendable {
        case attribute(column: Int, type: AttributeType)
        case toOne(column: Int, entityColumn: Int?, destination: EntityDescription)
        case none
    }

    let entity: EntityDescription
    let table: String
    /// `t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.<every column of the table>`.
    let selectList: String
    /// One row by primary key (a fault fired): built once, not per fault.
    let selectByKeySQL: String
    /// By entity number (nil for entities outside the hierarchy): an array, since a
    /// dictionary lookup per row showed in profiles.
    private let plans: [[PropertyRead]?]
    /// Column name to position in the select list.
    let columnPositions: [String: Int]
    /// Where external binary values live (nil: in-memory store, values inline).
    let externalDataFolder: URL?

    init(entity: EntityDescription, schema: StoreSchema, externalDataFolder: URL? = nil) {
        self.entity = entity
        self.externalDataFolder = externalDataFolder
        let mapping = schema.mapping(for: entity)
        table = mapping.table
        let tableColumns = schema.tables.first { $0.name == mapping.table }!.columns.map(\.name)
        selectList = (["t0.Z_PK", "t0.Z_ENT", "t0.Z_OPT"] + tableColumns.map { "t0." + $0.quotedDatabaseIdentifier }).joined(separator: ", ")
        selectByKeySQL = "SELECT \(selectList) FROM \(mapping.table.quotedDatabaseIdentifier) t0 WHERE t0.Z_PK = ?"
        var positions: [String: Int] = [:]
        for (i, name) in (["Z_PK", "Z_ENT", "Z_OPT"] + tableColumns).enumerated() { positions[name] = i }
        columnPositions = positions
        var plans: [Int: [PropertyRead]] = [:]
        let model = entity.model!
        for number in entity.entityNumbersInHierarchy {
            guard let concrete = model.entity(number: number) else { continue }
            let concreteMapping = schema.mapping(for: concrete)
            plans[number] = concrete.properties.enumerated().map { index, property in
                switch (property, concreteMapping.storage[index]) {
                case let (.attribute(attribute), .column(column)):
                    return .attribute(column: positions[column]!, type: attribute.type)
                case let (.relationship(relationship), .foreignKey(column, entityColumn)):
                    return .toOne(column: positions[column]!, entityColumn: entityColumn.flatMap { positions[$0] },
                                  destination: model.entitiesByName[relationship.destinationEntityName]!)
                default:
                    return .none
                }
            }
        }
        self.plans = (0...(plans.keys.max() ?? 0)).map { plans[$0] }
    }

    /// Reads the current row of a stepping statement straight from SQLite's column API: the
    /// hot path of fetches (no `Row` indirection, no intermediate `DatabaseValue`).
    ///
    /// - Throws: as ``RowDecoder/read(_:primaryKey:)``.
    func read(statement: SQLiteStatement, storeKey: UInt32, model: ManagedObjectModel) throws(NimbusError) -> (ManagedObjectID, RowSnapshot) {
        var decoder = RowDecoder(reader: self, storeKey: storeKey, model: model)
        return try decoder.read(statement, primaryKey: sqlite3_column_int64(statement, 0))
    }

    /// A stored value its attribute cannot hold.
    enum ValueFailure: Error {
        /// A REAL (or text) in an integer column that is no whole number in the type's range.
        case notAnInteger(String, AttributeType)
        /// An integer outside an `integer16`/`integer32` attribute's range.
        case outOfRange(Int64, AttributeType)
    }

    /// The plan of one concrete entity of the hierarchy (nil for entities outside it).
    func plan(forEntityNumber number: Int) -> [PropertyRead]? {
        number >= 0 && number < plans.count ? plans[number] : nil
    }

    /// One property's value in the current row.
    ///
    /// Integer attributes are checked, not converted with a trap or truncated: a REAL must be
    /// a whole number in range, and `integer16`/`integer32` values must fit (one comparison).
    @inline(__always)
    static func value(_ read: PropertyRead, statement: SQLiteStatement, storeKey: UInt32, model: ManagedObjectModel) throws(ValueFailure) -> PropertyValue {
        switch read {
        case let .attribute(column, type):
            let c = Int32(column)
            let storage = sqlite3_column_type(statement, c)
            guard storage != SQLITE_NULL else { return .null }
            switch type {
            case .integer64 where storage == SQLITE_INTEGER:
                return .integer(sqlite3_column_int64(statement, c))
            case .integer16, .integer32, .integer64:
                let integer: Int64
                if storage == SQLITE_INTEGER {
                    integer = sqlite3_column_int64(statement, c)
                } else if storage == SQLITE_FLOAT {
                    let real = sqlite3_column_double(statement, c)
                    guard let exact = Int64(exactly: real) else { throw .notAnInteger("\(real)", type) }
                    integer = exact
                } else {
                    throw .notAnInteger(storage == SQLITE_TEXT ? "text" : "a blob", type)
                }
                if type != .integer64, !type.integerRange.unsafelyUnwrapped.contains(integer) { throw .outOfRange(integer, type) }
                return .integer(integer)
            case .double, .float:
                return .double(sqlite3_column_double(statement, c))
            case .boolean:
                return .bool(sqlite3_column_int64(statement, c) != 0)
            case .date:
                return .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, c)))
            case .string where storage == SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(statement, c))
                guard let text = sqlite3_column_text(statement, c) else { return .string("") }
                return .string(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case .binaryData where storage == SQLITE_BLOB, .transformable where storage == SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(statement, c))
                return .data(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, c), count: count))
            default:
                return PropertyValue(databaseValue: DatabaseValue(sqliteStatement: statement, index: c), type: type)
            }
        case let .toOne(column, entityColumn, destination):
            let c = Int32(column)
            guard sqlite3_column_type(statement, c) != SQLITE_NULL else { return .null }
            var target = destination
            if let entityColumn, sqlite3_column_type(statement, Int32(entityColumn)) != SQLITE_NULL,
               let e = model.entity(number: Int(sqlite3_column_int64(statement, Int32(entityColumn)))) {
                target = e
            }
            return .object(ManagedObjectID(entity: target, storeKey: storeKey, primaryKey: sqlite3_column_int64(statement, c)))
        case .none:
            return .null
        }
    }

    /// The SQL condition selecting the entity's rows (and its sub-entities' when asked).
    func entityCondition(includesSubentities: Bool) -> String? {
        if includesSubentities {
            if entity.superentity == nil && entity.entityNumbersInHierarchy.count == 1 { return nil }
            if entity.entityNumbersInHierarchy.count == 1 { return "t0.Z_ENT = \(entity.entityNumber)" }
            return "t0.Z_ENT IN (\(entity.entityNumbersInHierarchy.map(String.init).joined(separator: ", ")))"
        }
        return "t0.Z_ENT = \(entity.entityNumber)"
    }
}
