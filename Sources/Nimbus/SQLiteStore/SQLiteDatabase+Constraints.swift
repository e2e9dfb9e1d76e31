import Foundation
import GRDB

extension SQLiteDatabase {
    /// A uniqueness-constraint violation reported by SQLite (`UNIQUE constraint failed:
    /// ZPERSON.ZEMAIL`) as a ``NimbusError/Code-swift.struct/constraintConflict`` naming the
    /// entity and its properties, as a Core Data user knows them; nil for other errors.
    func constraintConflict(_ error: DatabaseError) -> NimbusError? {
        guard error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE, let message = error.message,
              let range = message.range(of: "UNIQUE constraint failed: ") else { return nil }
        let failed = message[range.upperBound...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let columns = Set(failed)
        for entity in model.entities {
            let mapping = schema.mapping(for: entity)
            for constraint in entity.uniquenessConstraints {
                let constraintColumns = Set(constraint.compactMap { name -> String? in
                    guard let index = entity.propertyIndexes[name] else { return nil }
                    switch mapping.storage[index] {
                    case let .column(column), let .foreignKey(column, _): return "\(mapping.table).\(column)"
                    default: return nil
                    }
                })
                guard constraintColumns == columns else { continue }
                let names = constraint.joined(separator: ", ")
                return NimbusError(.constraintConflict,
                                   "another \(entity.name) already has the same \(names): \(entity.name)'s uniqueness constraint (\(names)) allows one object per value; nothing was saved",
                                   underlying: error)
            }
        }
        return nil
    }
}
