import Foundation
import Synchronization

/// The one meaning of comparisons, shared by the in-memory evaluator, the SQL functions
/// registered on every connection, and the in-memory sort comparator.
///
/// - Numbers (integers, doubles, decimals, booleans) compare numerically, across kinds.
/// - Strings compare by Unicode code point (SQLite's BINARY collation), after folding both
///   sides with ``StringFolding`` for `[c]` and `[d]`.
/// - Dates compare by time, and with numbers as seconds since 2001 (`CAST(n, 'NSDate')`).
/// - UUIDs and data compare by bytes; a UUID equals its string form; a URL its text.
/// - `nil` equals only `nil`; any ordering or string operator with `nil` is false.
enum PredicateSemantics {
    /// The broad kind of a non-null value: what it may be compared with.
    enum Kind: String {
        case number, string, date, data, uuid, url, object

        init?(_ value: PropertyValue) {
            switch value {
            case .null, .objects: return nil
            case .integer, .double, .decimal, .bool: self = .number
            case .string: self = .string
            case .date: self = .date
            case .data: self = .data
            case .uuid: self = .uuid
            case .url: self = .url
            case .object: self = .object
            }
        }
    }

    static func mismatch(_ a: PropertyValue, _ b: PropertyValue, _ what: String = "compare") -> NimbusError {
        NimbusError(.typeMismatch, "cannot \(what) \(PredicateFormatter.format(a)) (\(Kind(a)?.rawValue ?? "nil")) with \(PredicateFormatter.format(b)) (\(Kind(b)?.rawValue ?? "nil"))")
    }

    /// Orders two non-null values, or throws when they cannot be compared.
    static func compare(_ a: PropertyValue, _ b: PropertyValue) throws -> ComparisonResult {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return order(x, y)
        case let (.string(x), .string(y)): return binaryCompare(x, y)
        case let (.date(x), .date(y)): return order(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        case let (.data(x), .data(y)): return bytesCompare(x, y)
        case let (.uuid(x), .uuid(y)): return bytesCompare(uuidBytes(x), uuidBytes(y))
        case let (.uuid(x), .string(y)):
            guard let u = UUID(uuidString: y) else { throw mismatch(a, b) }
            return bytesCompare(uuidBytes(x), uuidBytes(u))
        case (.string, .uuid): return try compare(b, a).reversed
        case let (.url(x), .url(y)): return binaryCompare(x.absoluteString, y.absoluteString)
        case let (.url(x), .string(y)): return binaryCompare(x.absoluteString, y)
        case let (.string(x), .url(y)): return binaryCompare(x, y.absoluteString)
        case let (.object(x), .object(y)):
            return x == y ? .orderedSame : order(x.primaryKey, y.primaryKey) == .orderedSame ? (x < y ? .orderedAscending : .orderedDescending) : order(x.primaryKey, y.primaryKey)
        default:
            guard let x = number(a), let y = number(b) else { throw mismatch(a, b) }
            return numericCompare(x, y)
        }
    }

    /// Whether two values are equal (`nil == nil` is true).
    static func equal(_ a: PropertyValue, _ b: PropertyValue) throws -> Bool {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        if case .object = a, case .object = b { return a == b }
        return try compare(a, b) == .orderedSame
    }

    /// A number, or a date as seconds since 2001, for numeric comparison.
    enum Number { case integer(Int64), double(Double) }

    static func number(_ value: PropertyValue) -> Number? {
        switch value {
        case let .integer(v): .integer(v)
        case let .double(v): .double(v)
        case let .decimal(v): .double(NSDecimalNumber(decimal: v).doubleValue)
        case let .bool(v): .integer(v ? 1 : 0)
        case let .date(v): .double(v.timeIntervalSinceReferenceDate)
        default: nil
        }
    }

    /// Compares an integer and a double exactly, as SQLite does.
    static func numericCompare(_ a: Number, _ b: Number) -> ComparisonResult {
        switch (a, b) {
        case let (.integer(x), .integer(y)): return order(x, y)
        case let (.double(x), .double(y)): return order(x, y)
        case let (.integer(x), .double(y)): return intDoubleCompare(x, y)
        case let (.double(x), .integer(y)): return intDoubleCompare(y, x).reversed
        }
    }

    private static func intDoubleCompare(_ x: Int64, _ y: Double) -> ComparisonResult {
        if y.isNaN { return .orderedDescending }
        if y >= 9223372036854775808.0 { return .orderedAscending }
        if y < -9223372036854775808.0 { return .orderedDescending }
        let truncated = Int64(y.rounded(.towardZero))
        if x != truncated { return order(x, truncated) }
        let fraction = y - y.rounded(.towardZero)
        return fraction > 0 ? .orderedAscending : fraction < 0 ? .orderedDescending : .orderedSame
    }

    static func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
    }

    /// Code point order (UTF-8 byte order), as SQLite's BINARY collation.
    static func binaryCompare(_ x: String, _ y: String) -> ComparisonResult {
        var i = x.utf8.makeIterator()
        var j = y.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case let (a?, b?) where a != b: return a < b ? .orderedAscending : .orderedDescending
            default: continue
            }
        }
    }

    static func bytesCompare(_ x: Data, _ y: Data) -> ComparisonResult {
        if x.lexicographicallyPrecedes(y) { return .orderedAscending }
        return x == y ? .orderedSame : .orderedDescending
    }

    static func uuidBytes(_ uuid: UUID) -> Data { withUnsafeBytes(of: uuid.uuid) { Data($0) } }

    // MARK: Strings

    /// Folds a string for `[c]` and `[d]`; the same function runs in SQL (`NIMBUS_FOLD`).
    static func fold(_ string: String, _ options: QueryPredicate.Comparison.Options) -> String {
        StringFolding.fold(string, caseInsensitive: options.contains(.caseInsensitive),
                           diacriticInsensitive: options.contains(.diacriticInsensitive))
    }

    /// The `NIMBUS_FOLD` option bits for comparison options.
    static func foldBits(_ options: QueryPredicate.Comparison.Options) -> Int {
        (options.contains(.caseInsensitive) ? 1 : 0) | (options.contains(.diacriticInsensitive) ? 2 : 0)
    }

    /// `BEGINSWITH`: a non-empty code-point prefix. An empty needle matches nothing, as in Foundation.
    static func beginsWith(_ text: String, _ needle: String) -> Bool {
        !needle.isEmpty && text.utf8.starts(with: needle.utf8)
    }

    /// `ENDSWITH`: a non-empty code-point suffix.
    static func endsWith(_ text: String, _ needle: String) -> Bool {
        !needle.isEmpty && text.utf8.reversed().starts(with: needle.utf8.reversed())
    }

    /// `CONTAINS` on strings: a non-empty code-point substring.
    static func contains(_ text: String, _ needle: String) -> Bool {
        guard !needle.isEmpty else { return false }
        let haystack = Array(text.utf8), pattern = Array(needle.utf8)
        guard pattern.count <= haystack.count else { return false }
        for start in 0...(haystack.count - pattern.count) where haystack[start] == pattern[0] {
            if haystack[start..<start + pattern.count].elementsEqual(pattern) { return true }
        }
        return false
    }

    /// `LIKE`: `*` matches any run of characters, `?` one character (code point), `\` escapes;
    /// the whole string must match.
    static func like(_ text: String, _ pattern: String) -> Bool {
        let t = Array(text.unicodeScalars)
        var p: [(scalar: Unicode.Scalar, wildcard: Bool)] = []
        var iterator = pattern.unicodeScalars.makeIterator()
        while let c = iterator.next() {
            if c == "\\", let escaped = iterator.next() { p.append((escaped, false)) } else { p.append((c, c == "*" || c == "?")) }
        }
        // Iterative matching with backtracking to the last `*`: linear in practice, never exponential.
        var ti = 0, pi = 0, starP = -1, starT = 0
        while ti < t.count {
            if pi < p.count, p[pi].wildcard, p[pi].scalar == "*" {
                starP = pi; starT = ti; pi += 1
            } else if pi < p.count, p[pi].wildcard ? p[pi].scalar == "?" : p[pi].scalar == t[ti] {
                ti += 1; pi += 1
            } else if starP >= 0 {
                pi = starP + 1; starT += 1; ti = starT
            } else {
                return false
            }
        }
        while pi < p.count, p[pi].wildcard, p[pi].scalar == "*" { pi += 1 }
        return pi == p.count
    }

    private static let regexCache = Mutex<[String: NSRegularExpression]>([:])

    /// `MATCHES`: the whole string matches an ICU regular expression.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` for a malformed pattern.
    static func matches(_ text: String, _ pattern: String, caseInsensitive: Bool) throws -> Bool {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        let regex: NSRegularExpression
        if let cached = regexCache.withLock({ $0[key] }) {
            regex = cached
        } else {
            do {
                regex = try NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: caseInsensitive ? [.caseInsensitive] : [])
            } catch {
                throw NimbusError(.invalidPredicate, "MATCHES pattern \(PredicateFormatter.quote(pattern)) is not a valid regular expression")
            }
            regexCache.withLock { cache in
                if cache.count > 256 { cache.removeAll() }
                cache[key] = regex
            }
        }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.firstMatch(in: text, options: [.anchored], range: range) != nil
    }
}

extension ComparisonResult {
    var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
