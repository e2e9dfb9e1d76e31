import Foundation
import GRDB

extension LightweightMigration {
    /// The SQL that carries an old column's value into a new attribute: integers become
    /// REAL for floating-point attributes, a float widened to double keeps its value, and an
    /// attribute that became required takes its default where the old row held nil.
    static func convertedValue(_ column: String, from old: AttributeDescription?, to new: AttributeDescription?) -> String {
        guard let new else { return column }
        var sql = column
        if let old, old.type != new.type {
            switch new.type {
            case .double, .float:
                if old.type.isInteger { sql = "CAST(\(column) AS REAL)" }
            case .integer16, .integer32, .integer64:
                if old.type == .boolean { sql = "CAST(\(column) AS INTEGER)" }
            default:
                break
            }
        }
        // External storage switched on or off: the stored form gains or loses its marker
        // byte (values in files are refused by ``checkExternalValues``).
        let allowsBefore = old.map(allowsExternal) ?? false
        if allowsExternal(new) && !allowsBefore {
            sql = "(CASE WHEN \(sql) IS NULL THEN NULL ELSE CAST(X'01' || \(sql) AS BLOB) END)"
        } else if allowsBefore && !allowsExternal(new) {
            sql = "(CASE WHEN substr(\(sql), 1, 1) = X'01' THEN substr(\(sql), 2) ELSE \(sql) END)"
        }
        if !new.isOptional, let value = new.defaultValue, old?.isOptional ?? true {
            sql = "COALESCE(\(sql), \(sqlLiteral(value.databaseValue)))"
        }
        return sql
    }

    /// Refuses the migration when a required attribute of the new model would hold nil
    /// (an optional attribute that became required without a default, over rows that hold
    /// none), naming the attribute and how many objects lack it.
    static func checkRequiredValues(_ db: Database, table: String, entity: EntityDescription,
                                    mapping: StoreSchema.EntityMapping, added: Set<String> = []) throws {
        for (index, property) in entity.properties.enumerated() {
            guard let attribute = property.attribute, !attribute.isOptional, !attribute.isTransient,
                  case let .column(column) = mapping.storage[index] else { continue }
            let missing = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier) WHERE Z_ENT = ? AND \(column.quotedDatabaseIdentifier) IS NULL",
                                           arguments: [entity.entityNumber]) ?? 0
            if missing > 0, added.contains(attribute.name) {
                throw NimbusError(.modelMismatch, "\(entity.name).\(attribute.name) is new and required and has no default value, and the store holds \(missing) \(entity.name) object(s) to fill; give it a default value, or migrate with a mapping model that computes it")
            }
            if missing > 0 {
                throw NimbusError(.modelMismatch, "\(entity.name).\(attribute.name) is required in the new model but \(missing) object(s) have no value and it has no default value; give it a default value, or migrate with a mapping model that computes it")
            }
        }
    }

    static func allowsExternal(_ attribute: AttributeDescription) -> Bool {
        attribute.allowsExternalBinaryDataStorage && (attribute.type == .binaryData || attribute.type == .transformable)
    }

    /// Refuses to switch external storage off for an attribute whose values live in files
    /// (an in-place migration cannot read them back into rows).
    static func checkExternalValues(_ db: Database, table: String, column: String, entity: EntityDescription,
                                    old: AttributeDescription?, new: AttributeDescription?) throws {
        guard let old, let new, allowsExternal(old), !allowsExternal(new) else { return }
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table.quotedDatabaseIdentifier) WHERE Z_ENT = ? AND substr(\(column.quotedDatabaseIdentifier), 1, 1) = X'02'",
                                     arguments: [entity.entityNumber]) ?? 0
        if count > 0 {
            throw NimbusError(.modelMismatch, "\(entity.name).\(new.name) no longer allows external storage, but \(count) value(s) are in external files; keep allowsExternalBinaryDataStorage on, or migrate with a mapping model")
        }
    }
}
