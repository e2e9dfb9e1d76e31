import Foundation

/// The bitwise functions of `NSExpression` (`flags & 4`, `a | b`, `a ^ b`, `~a`,
/// `leftshift:by:`, `rightshift:by:`): on 64-bit integers, in memory and in SQL alike.
/// Booleans count as 0 and 1; a double that holds a whole number counts as that integer;
/// nil gives nil; anything else is a type mismatch.
enum PredicateBitwise {
    static let names: Set<String> = ["bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:"]

    /// Evaluates a bitwise function on values.
    static func evaluate(_ name: String, _ values: [PropertyValue]) throws -> PropertyValue {
        if values.contains(where: \.isNull) { return .null }
        let integers = try values.map { value -> Int64 in
            switch value {
            case let .integer(v): return v
            case let .bool(v): return v ? 1 : 0
            case let .double(v) where Int64(exactly: v) != nil: return Int64(exactly: v)!
            default: throw PredicateSemantics.mismatch(value, .integer(0), "compute \(name) with")
            }
        }
        switch name {
        case "onesComplement:": return .integer(~integers[0])
        case "bitwiseAnd:with:": return .integer(integers[0] & integers[1])
        case "bitwiseOr:with:": return .integer(integers[0] | integers[1])
        case "bitwiseXor:with:": return .integer(integers[0] ^ integers[1])
        // SQLite shifts by a negative amount the other way and by 64 or more to 0 (or -1).
        case "leftshift:by:": return .integer(shift(integers[0], by: integers[1]))
        default: return .integer(shift(integers[0], by: integers[1] == Int64.min ? Int64.max : -integers[1]))
        }
    }

    /// A left shift by `amount` (right when negative), with SQLite's results past 63.
    private static func shift(_ value: Int64, by amount: Int64) -> Int64 {
        if amount >= 64 { return 0 }
        if amount <= -64 { return value < 0 ? -1 : 0 }
        return amount >= 0 ? value << amount : value >> -amount
    }
}
