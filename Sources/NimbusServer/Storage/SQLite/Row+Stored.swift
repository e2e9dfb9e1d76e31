import Foundation
import GRDB

/// A value in the database that cannot be read as the type its column holds (text in an
/// integer column, a real too large for an integer, a blob for a name…): the request that
/// met it fails, and the log names the table and the column; the server goes on serving.
///
/// For example:
/// ```swift
/// let expiresAt: Int64? = try row.storedIfPresent("expires_at", in: "tokens")   // throws for 'soon'
/// ```
package struct UndecodableValueError: Error, CustomStringConvertible, CustomDebugStringConvertible {
    /// The table the value was read from.
    package var table: String
    /// The column.
    package var column: String
    /// The type the server expected.
    package var expected: String
    /// What the database holds, shortened.
    package var found: String

    package var description: String {
        "The database holds a value the server cannot read in \(table).\(column): expected \(expected), found \(found). Run `nimbus serve --check` and repair the row."
    }

    package var debugDescription: String { description }
}

extension Row {
    /// The value of a column that may not be NULL, converted without GRDB's trap on a
    /// mismatch.
    /// - Parameters:
    ///   - column: The column's name in the row.
    ///   - table: The table it comes from, for the error.
    /// - Throws: ``UndecodableValueError`` when the value is NULL or of another type.
    package func stored<Value: DatabaseValueConvertible>(_ column: String, in table: String) throws -> Value {
        let value: DatabaseValue = self[column] ?? .null
        guard let converted = Value.fromDatabaseValue(value) else {
            throw UndecodableValueError(table: table, column: column, expected: "\(Value.self)", found: Self.describe(value))
        }
        return converted
    }

    /// The value of a column that may be NULL (`nil` then), converted without GRDB's trap on
    /// a mismatch.
    /// - Throws: ``UndecodableValueError`` when the value is of another type.
    package func storedIfPresent<Value: DatabaseValueConvertible>(_ column: String, in table: String) throws -> Value? {
        let value: DatabaseValue = self[column] ?? .null
        if value.isNull { return nil }
        guard let converted = Value.fromDatabaseValue(value) else {
            throw UndecodableValueError(table: table, column: column, expected: "\(Value.self)", found: Self.describe(value))
        }
        return converted
    }

    /// A short description of a stored value for the log.
    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let number): "the integer \(number)"
        case .double(let number): "the real \(number)"
        case .string(let text): "the text '\(text.prefix(40))'"
        case .blob(let data): "a \(data.count)-byte blob"
        }
    }
}
