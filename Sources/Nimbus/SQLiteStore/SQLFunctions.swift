import Foundation
import GRDB

/// SQL functions and collations Nimbus registers on every connection, so that SQL and
/// in-memory evaluation give the same answers: each calls the Swift code the evaluator uses.
enum SQLFunctions {
    static func register(on db: Database) throws {
        for function in all { db.add(function: function) }
        for collation in collations { db.add(collation: collation) }
        try TextFunctions.register(on: db)
    }

    static let fold = "NIMBUS_FOLD"
    static let like = "NIMBUS_LIKE"
    static let matches = "NIMBUS_MATCHES"
    static let beginsWith = "NIMBUS_BEGINSWITH"
    static let endsWith = "NIMBUS_ENDSWITH"
    static let contains = "NIMBUS_CONTAINS"
    static let lower = "NIMBUS_LOWER"
    static let upper = "NIMBUS_UPPER"
    static let checked = "NIMBUS_CHECKED"
    static let caseInsensitiveCollation = "NIMBUS_CASE_INSENSITIVE"
    static let localizedCollation = "NIMBUS_LOCALIZED"

    /// A two-string predicate function: NULL when either argument is NULL.
    private static func stringTest(_ name: String, _ test: @escaping @Sendable (String, String) -> Bool) -> DatabaseFunction {
        DatabaseFunction(name, argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let other = String.fromDatabaseValue(values[1]) else { return nil }
            return test(text, other)
        }
    }

    /// The functions: `NIMBUS_FOLD(text, options)` folds case (1) and diacritics (2);
    /// `NIMBUS_LIKE(text, pattern)` is `LIKE` with `*` and `?`; `NIMBUS_MATCHES(text, regex,
    /// caseInsensitive)`; `NIMBUS_BEGINSWITH`, `NIMBUS_ENDSWITH`, `NIMBUS_CONTAINS` on code
    /// points; `NIMBUS_LOWER`/`NIMBUS_UPPER` as Swift's `lowercased()`/`uppercased()`.
    static let all: [DatabaseFunction] = [
        DatabaseFunction(fold, argumentCount: 2, pure: true) { values in
            guard let string = String.fromDatabaseValue(values[0]) else { return nil }
            let options = Int.fromDatabaseValue(values[1]) ?? 0
            return StringFolding.fold(string, caseInsensitive: options & 1 != 0, diacriticInsensitive: options & 2 != 0)
        },
        stringTest(like) { PredicateSemantics.like($0, $1) },
        stringTest(beginsWith) { PredicateSemantics.beginsWith($0, $1) },
        stringTest(endsWith) { PredicateSemantics.endsWith($0, $1) },
        stringTest(contains) { PredicateSemantics.contains($0, $1) },
        DatabaseFunction(matches, argumentCount: 3, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return nil }
            return try PredicateSemantics.matches(text, pattern, caseInsensitive: (Int.fromDatabaseValue(values[2]) ?? 0) != 0)
        },
        // NIMBUS_CHECKED(value, attribute type, label): the value of a batch update's
        // expression, checked against its attribute's type (SQLITE_MISMATCH otherwise).
        DatabaseFunction(checked, argumentCount: 3, pure: true) { values in
            try checkedValue(values[0], type: AttributeType(rawValue: String.fromDatabaseValue(values[1]) ?? "") ?? .binaryData,
                             label: String.fromDatabaseValue(values[2]) ?? "?")
        },
        DatabaseFunction(lower, argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0])?.lowercased()
        },
        DatabaseFunction(upper, argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0])?.uppercased()
        },
    ]

    /// Collations for sort descriptors: ``FetchSortDescriptor/Comparison/caseInsensitive``
    /// and ``FetchSortDescriptor/Comparison/localizedStandard``.
    static let collations: [DatabaseCollation] = [
        DatabaseCollation(caseInsensitiveCollation) { StringFolding.caseInsensitiveCompare($0, $1) },
        DatabaseCollation(localizedCollation) { StringFolding.localizedStandardCompare($0, $1) },
    ]
}

/// Case and diacritic folding shared by SQL and in-memory evaluation.
enum StringFolding {
    static func fold(_ string: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        var options: String.CompareOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        guard !options.isEmpty else { return string }
        return string.folding(options: options, locale: nil)
    }

    /// Case-insensitive order: folded strings by code point.
    static func caseInsensitiveCompare(_ a: String, _ b: String) -> ComparisonResult {
        PredicateSemantics.binaryCompare(fold(a, caseInsensitive: true, diacriticInsensitive: false),
                                         fold(b, caseInsensitive: true, diacriticInsensitive: false))
    }

    /// `localizedStandardCompare`-like order, identical on every platform: case- and
    /// diacritic-folded, runs of digits compared by value ("file2" < "file10"), then by
    /// code point to break ties.
    static func localizedStandardCompare(_ a: String, _ b: String) -> ComparisonResult {
        let x = Array(fold(a, caseInsensitive: true, diacriticInsensitive: true).unicodeScalars)
        let y = Array(fold(b, caseInsensitive: true, diacriticInsensitive: true).unicodeScalars)
        var i = 0, j = 0
        func isDigit(_ s: Unicode.Scalar) -> Bool { ("0"..."9").contains(s) }
        while i < x.count, j < y.count {
            if isDigit(x[i]), isDigit(y[j]) {
                var p = i, q = j
                while p < x.count, isDigit(x[p]) { p += 1 }
                while q < y.count, isDigit(y[q]) { q += 1 }
                let m = String(String.UnicodeScalarView(x[i..<p]).drop { $0 == "0" })
                let n = String(String.UnicodeScalarView(y[j..<q]).drop { $0 == "0" })
                if m.count != n.count { return m.count < n.count ? .orderedAscending : .orderedDescending }
                if m != n { return m < n ? .orderedAscending : .orderedDescending }
                i = p; j = q
                continue
            }
            if x[i] != y[j] { return x[i].value < y[j].value ? .orderedAscending : .orderedDescending }
            i += 1; j += 1
        }
        if i < x.count || j < y.count { return i < x.count ? .orderedDescending : .orderedAscending }
        return PredicateSemantics.binaryCompare(a, b)
    }
}

extension SQLFunctions {
    /// A batch update expression's value if its attribute can hold it (a whole REAL becomes
    /// the integer); otherwise a `SQLITE_MISMATCH` error that stops the whole update.
    static func checkedValue(_ value: DatabaseValue, type: AttributeType, label: String) throws -> DatabaseValue {
        func mismatch(_ shown: String) -> DatabaseError {
            DatabaseError(resultCode: .SQLITE_MISMATCH, message: "the batch update sets \(label) to \(shown), which a \(type.rawValue) "
                + "attribute cannot hold; nothing was updated: change the expression so it stays in the attribute's type and range")
        }
        switch (value.storage, type) {
        case (.null, _):
            return value
        case let (.int64(v), .integer16), let (.int64(v), .integer32), let (.int64(v), .integer64):
            guard type.integerRange!.contains(v) else { throw mismatch(String(v)) }
            return value
        case let (.double(v), .integer16), let (.double(v), .integer32), let (.double(v), .integer64):
            guard let exact = Int64(exactly: v), type.integerRange!.contains(exact) else { throw mismatch(String(v)) }
            return exact.databaseValue
        case (_, .integer16), (_, .integer32), (_, .integer64):
            throw mismatch("a non-number")
        case (.int64, .double), (.int64, .float), (.int64, .decimal), (.int64, .date),
             (.double, .double), (.double, .float), (.double, .decimal), (.double, .date):
            return value
        case let (.int64(v), .boolean):
            guard v == 0 || v == 1 else { throw mismatch(String(v)) }
            return value
        case (_, .double), (_, .float), (_, .decimal), (_, .date), (_, .boolean):
            throw mismatch("a non-number")
        case (.string, .string), (.string, .uri):
            return value
        case (_, .string), (_, .uri):
            throw mismatch("a non-text value")
        default:
            return value
        }
    }
}
