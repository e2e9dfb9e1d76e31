import Foundation
import GRDB
import GRDBSQLite

/// Turns the rows of one statement into IDs and snapshots, one after another.
///
/// Rows of one entity come in runs, so the decoder keeps the plan and entity of the last
/// entity number it saw instead of looking them up (and retaining them) for every row.
struct RowDecoder {
    let reader: EntityReader
    let storeKey: UInt32
    let model: ManagedObjectModel
    /// No row has this number (`Z_ENT` is read as a 64-bit integer; `Int.min` is never valid).
    private var lastNumber = Int.min
    private var plan: [EntityReader.PropertyRead] = []
    private var entity: EntityDescription?
    /// Attributes of the current entity whose stored values carry external-storage markers.
    private var external: [Int] = []

    init(reader: EntityReader, storeKey: UInt32, model: ManagedObjectModel) {
        self.reader = reader
        self.storeKey = storeKey
        self.model = model
    }

    /// The current row (columns `Z_PK, Z_ENT, Z_OPT, …` of the reader's select list).
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/corruptStore`` when the row's `Z_ENT` is
    ///   NULL or no entity of the reader's hierarchy, ``NimbusError/Code-swift.struct/typeMismatch``
    ///   when a column holds a value its attribute cannot (a fraction or out-of-range number in
    ///   an integer attribute).
    @inline(__always)
    mutating func read(_ statement: SQLiteStatement, primaryKey: Int64) throws(NimbusError) -> (ManagedObjectID, RowSnapshot) {
        let id = try id(statement, primaryKey: primaryKey)
        return (id, try snapshot(statement, primaryKey: primaryKey))
    }

    /// The ID of the current row, without decoding its values (read them with
    /// ``snapshot(_:primaryKey:)`` while the statement is still on the row).
    @inline(__always)
    mutating func id(_ statement: SQLiteStatement, primaryKey: Int64) throws(NimbusError) -> ManagedObjectID {
        let number = Int(sqlite3_column_int64(statement, 1))
        if number != lastNumber {
            guard let plan = reader.plan(forEntityNumber: number), let entity = model.entity(number: number),
                  sqlite3_column_type(statement, 1) != SQLITE_NULL else {
                throw badEntityNumber(statement, primaryKey: primaryKey)
            }
            (lastNumber, self.plan, self.entity) = (number, plan, entity)
            external = reader.externalDataFolder == nil ? [] : ExternalStorage.indexes(of: entity)
        }
        return ManagedObjectID(entity: entity.unsafelyUnwrapped, storeKey: storeKey, primaryKey: primaryKey)
    }

    /// The values of the current row, whose ID ``id(_:primaryKey:)`` read last.
    ///
    /// `mutating` though it changes nothing: a caller that reaches the decoder through a
    /// closure's capture then borrows it in place instead of copying it (five retains and
    /// releases per row).
    @inline(__always)
    mutating func snapshot(_ statement: SQLiteStatement, primaryKey: Int64) throws(NimbusError) -> RowSnapshot {
        let version = sqlite3_column_type(statement, 2) == SQLITE_NULL ? 1 : sqlite3_column_int64(statement, 2)
        // Appending into reserved storage: the array initializers that take a count allocate
        // through an unspecialized path of the standard library (a metadata lookup per row).
        var row: [PropertyValue] = []
        row.reserveCapacity(plan.count)
        for index in plan.indices {
            do {
                row.append(try EntityReader.value(plan[index], statement: statement, storeKey: storeKey, model: model))
            } catch {
                throw badValue(error, property: index, primaryKey: primaryKey)
            }
        }
        if !external.isEmpty, let folder = reader.externalDataFolder {
            let entity = entity.unsafelyUnwrapped
            for index in external {
                row[index] = try ExternalStorage.decode(row[index], folder: folder,
                                                        owner: "\(entity.name).\(entity.properties[index].name) of the row Z_PK = \(primaryKey)")
            }
        }
        return RowSnapshot(version: version, values: row)
    }

    private func badEntityNumber(_ statement: SQLiteStatement, primaryKey: Int64) -> NimbusError {
        let stored = sqlite3_column_type(statement, 1) == SQLITE_NULL ? "NULL" : String(sqlite3_column_int64(statement, 1))
        let known = reader.entity.entityNumbersInHierarchy.map(String.init).joined(separator: ", ")
        return NimbusError(.corruptStore, "the row Z_PK = \(primaryKey) of \(reader.table) has Z_ENT = \(stored), which is no entity "
            + "stored in that table (expected one of \(known)); the store was changed outside Nimbus: fix or delete the row")
    }

    private func badValue(_ failure: EntityReader.ValueFailure, property index: Int, primaryKey: Int64) -> NimbusError {
        let entity = entity.unsafelyUnwrapped
        let name = "\(entity.name).\(entity.properties[index].name)"
        switch failure {
        case let .notAnInteger(value, type):
            return NimbusError(.typeMismatch, "\(name) of the row Z_PK = \(primaryKey) holds \(value), which is not a whole number "
                + "in the range of \(type.rawValue) (a batch update's expression or an integer overflow in SQL can store one); "
                + "update the row with a value in range")
        case let .outOfRange(value, type):
            return NimbusError(.typeMismatch, "\(name) of the row Z_PK = \(primaryKey) holds \(value), out of the range of "
                + "\(type.rawValue) (\(type.integerRange!.lowerBound)...\(type.integerRange!.upperBound)); update the row "
                + "with a value in range, or widen the attribute's type")
        }
    }
}
