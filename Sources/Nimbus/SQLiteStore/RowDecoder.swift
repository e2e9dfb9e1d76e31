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
    private var lastNumber = -1
    private var plan: [EntityReader.PropertyRead] = []
    private var entity: EntityDescription?

    init(reader: EntityReader, storeKey: UInt32, model: ManagedObjectModel) {
        self.reader = reader
        self.storeKey = storeKey
        self.model = model
    }

    /// The current row (columns `Z_PK, Z_ENT, Z_OPT, …` of the reader's select list), or nil
    /// for a row of an entity outside the reader's hierarchy.
    @inline(__always)
    mutating func read(_ statement: SQLiteStatement, primaryKey: Int64) -> (ManagedObjectID, RowSnapshot)? {
        let number = Int(sqlite3_column_int64(statement, 1))
        if number != lastNumber {
            guard let plan = reader.plan(forEntityNumber: number), let entity = model.entity(number: number) else { return nil }
            (lastNumber, self.plan, self.entity) = (number, plan, entity)
        }
        let version = sqlite3_column_type(statement, 2) == SQLITE_NULL ? 1 : sqlite3_column_int64(statement, 2)
        // Appending into reserved storage: the array initializers that take a count allocate
        // through an unspecialized path of the standard library (a metadata lookup per row).
        var row: [PropertyValue] = []
        row.reserveCapacity(plan.count)
        for index in plan.indices {
            row.append(EntityReader.value(plan[index], statement: statement, storeKey: storeKey, model: model))
        }
        return (ManagedObjectID(entity: entity.unsafelyUnwrapped, storeKey: storeKey, primaryKey: primaryKey),
                RowSnapshot(version: version, values: row))
    }
}
