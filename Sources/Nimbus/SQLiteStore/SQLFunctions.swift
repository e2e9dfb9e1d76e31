import Foundation
import GRDB

/// SQL functions Nimbus registers on every connection, so that SQL and in-memory
/// evaluation give the same answers.
enum SQLFunctions {
    static func register(on db: Database) throws {
        for function in all { db.add(function: function) }
    }

    /// The functions: `NIMBUS_FOLD(text, options)` folds case (1) and diacritics (2).
    static let all: [DatabaseFunction] = [
        DatabaseFunction("NIMBUS_FOLD", argumentCount: 2, pure: true) { values in
            guard let string = String.fromDatabaseValue(values[0]) else { return nil }
            let options = Int.fromDatabaseValue(values[1]) ?? 0
            return StringFolding.fold(string, caseInsensitive: options & 1 != 0, diacriticInsensitive: options & 2 != 0)
        },
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
}
