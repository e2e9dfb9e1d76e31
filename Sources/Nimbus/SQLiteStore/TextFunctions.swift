import Foundation
import GRDB
import GRDBSQLite

/// `NIMBUS_TEXT(text, needle, code)`: the string comparisons of predicates with `[c]`, `[d]`
/// or `[cd]` (and `LIKE`) in one function called straight by SQLite, with no allocation per
/// row when the text is ASCII (docs/decisions/0022).
///
/// `needle` is already folded as the options ask (the compiler folds constants with
/// ``PredicateSemantics/fold(_:_:)``); `code` is `operation << 2 | fold bits` (bit 1: case,
/// bit 2: diacritics). The answer is the one `NIMBUS_FOLD` followed by the plain comparison
/// gives: folding ASCII text with Foundation lower-cases `A`–`Z` (case) and changes nothing
/// else (diacritics), so ASCII text is compared byte by byte, lower-cased on the fly; other
/// text is folded by Foundation first, as before. NULL in, NULL out.
enum TextFunctions {
    static let name = "NIMBUS_TEXT"

    /// The comparison a call makes.
    enum Operation: Int {
        case contains = 1, beginsWith, endsWith, equal, like
    }

    static func code(_ operation: Operation, foldBits: Int) -> Int { operation.rawValue << 2 | foldBits }

    static func register(on db: Database) throws {
        let function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
            TextFunctions.call(context, arguments!)
        }
        let code = sqlite3_create_function_v2(db.sqliteConnection, name, 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, function, nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "could not register \(name)") }
    }

    private static func call(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>) {
        let text = arguments[0], needle = arguments[1]
        let code = Int(sqlite3_value_int64(arguments[2]))
        guard let operation = Operation(rawValue: code >> 2), sqlite3_value_type(needle) != SQLITE_NULL else {
            sqlite3_result_null(context)
            return
        }
        let caseInsensitive = code & 1 != 0, diacriticInsensitive = code & 2 != 0
        let needleBytes = UnsafeBufferPointer(start: sqlite3_value_text(needle), count: Int(sqlite3_value_bytes(needle)))
        switch sqlite3_value_type(text) {
        case SQLITE_TEXT:
            let bytes = UnsafeBufferPointer(start: sqlite3_value_text(text), count: Int(sqlite3_value_bytes(text)))
            if isASCII(bytes) {
                sqlite3_result_int(context, test(operation, bytes, needleBytes, lowercasing: caseInsensitive) ? 1 : 0)
                return
            }
            let folded = StringFolding.fold(String(decoding: bytes, as: UTF8.self), caseInsensitive: caseInsensitive,
                                            diacriticInsensitive: diacriticInsensitive)
            sqlite3_result_int(context, slowTest(operation, folded, needleBytes) ? 1 : 0)
        case SQLITE_NULL:
            sqlite3_result_null(context)
        case SQLITE_BLOB:
            // What `NIMBUS_FOLD` did with a blob: GRDB reads valid UTF-8 as a String.
            let blob = UnsafeRawBufferPointer(start: sqlite3_value_blob(text), count: Int(sqlite3_value_bytes(text)))
            guard let string = String(validating: blob.bindMemory(to: UInt8.self), as: UTF8.self) else {
                sqlite3_result_null(context)
                return
            }
            let folded = StringFolding.fold(string, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive)
            sqlite3_result_int(context, slowTest(operation, folded, needleBytes) ? 1 : 0)
        default:
            // Numbers are no strings to GRDB: NULL, as `NIMBUS_FOLD` gave.
            sqlite3_result_null(context)
        }
    }

    private static func slowTest(_ operation: Operation, _ folded: String, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        if operation == .like {
            return PredicateSemantics.like(folded, String(decoding: needle, as: UTF8.self))
        }
        var folded = folded
        return folded.withUTF8 { test(operation, $0, needle, lowercasing: false) }
    }

    @inline(__always)
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var all: UInt8 = 0
        for byte in bytes { all |= byte }
        return all < 0x80
    }

    @inline(__always)
    private static func lower(_ byte: UInt8, _ lowercasing: Bool) -> UInt8 {
        lowercasing && byte &- 65 < 26 ? byte | 0x20 : byte
    }

    /// The comparison on UTF-8 bytes (code points compare as their bytes), the text
    /// lower-cased in ASCII when `lowercasing`.
    static func test(_ operation: Operation, _ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>, lowercasing: Bool) -> Bool {
        let n = needle.count, t = text.count
        switch operation {
        case .equal:
            guard n == t else { return false }
            for i in 0..<n where lower(text[i], lowercasing) != needle[i] { return false }
            return true
        case .beginsWith:
            guard n > 0, n <= t else { return false }
            for i in 0..<n where lower(text[i], lowercasing) != needle[i] { return false }
            return true
        case .endsWith:
            guard n > 0, n <= t else { return false }
            for i in 0..<n where lower(text[t - n + i], lowercasing) != needle[i] { return false }
            return true
        case .contains:
            guard n > 0, n <= t else { return false }
            // The needle's first byte as the text may hold it (either case of a letter), so
            // the scan for candidates folds nothing.
            let first = needle[0]
            let other = lowercasing && first &- 97 < 26 ? first & ~0x20 : first
            let last = t - n
            var start = 0
            while start <= last {
                let byte = text[start]
                if byte == first || byte == other {
                    var i = 1
                    while i < n, lower(text[start + i], lowercasing) == needle[i] { i += 1 }
                    if i == n { return true }
                }
                start += 1
            }
            return false
        case .like:
            return like(text, needle, lowercasing: lowercasing)
        }
    }

    /// ``PredicateSemantics/like(_:_:)`` on ASCII text: `*` any run, `?` one character, `\`
    /// escapes the next character; the pattern's other bytes match themselves.
    private static func like(_ text: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>, lowercasing: Bool) -> Bool {
        let star = UInt8(ascii: "*"), any = UInt8(ascii: "?"), escape = UInt8(ascii: "\\")
        var ti = 0, pi = 0, starP = -1, starT = 0
        while ti < text.count {
            if pi < pattern.count, pattern[pi] == star {
                starP = pi; starT = ti; pi += 1
                continue
            }
            if pi < pattern.count {
                let escaped = pattern[pi] == escape && pi + 1 < pattern.count
                let literal = escaped ? pattern[pi + 1] : pattern[pi]
                if (!escaped && literal == any) || literal == lower(text[ti], lowercasing) {
                    ti += 1; pi += escaped ? 2 : 1
                    continue
                }
            }
            guard starP >= 0 else { return false }
            pi = starP + 1; starT += 1; ti = starT
        }
        while pi < pattern.count, pattern[pi] == star { pi += 1 }
        return pi == pattern.count
    }
}
