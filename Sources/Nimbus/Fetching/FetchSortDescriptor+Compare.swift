import Foundation

extension FetchSortDescriptor {
    /// Orders two objects exactly as the SQL `ORDER BY` of this descriptor does.
    ///
    /// NULLs come first ascending (last descending); then numbers (dates as seconds since
    /// 2001, booleans as 0/1, related objects by row key), then text, then data, as SQLite
    /// orders storage classes. Text compares by code point, or with the descriptor's
    /// ``Comparison`` through the collations the SQL uses. For example:
    ///
    /// ```swift
    /// let byName = FetchSortDescriptor("name", comparison: .caseInsensitive)
    /// people.sort { byName.compare($0, $1) == .orderedAscending }
    /// ```
    public func compare(_ a: ManagedObject, _ b: ManagedObject) -> ComparisonResult {
        let order = Self.compare(sortValue(a), sortValue(b), comparison: comparison)
        return ascending ? order : order.reversed
    }

    /// Whether `a` comes before `b` under a list of sort descriptors.
    static func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject, by sorts: [FetchSortDescriptor]) -> Bool {
        for sort in sorts {
            switch sort.compare(a, b) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return false
    }

    /// The value sorted by: a key path's single value (nil when it cannot be read).
    func sortValue(_ object: ManagedObject) -> PropertyValue {
        let path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let operand = try? PredicateEvaluator().resolve(.object(object), path[...]) else { return .null }
        return (try? PredicateEvaluator().scalar(operand)) ?? .null
    }

    /// SQLite's storage-class order: NULL, numbers, text, blobs.
    static func rank(_ value: PropertyValue) -> Int {
        switch value {
        case .null, .objects: 0
        case .integer, .double, .decimal, .bool, .date, .object: 1
        case .string, .url: 2
        case .data, .uuid: 3
        }
    }

    /// Orders two values as SQLite's `ORDER BY` does.
    static func compare(_ a: PropertyValue, _ b: PropertyValue, comparison: Comparison) -> ComparisonResult {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? .orderedAscending : .orderedDescending }
        switch ra {
        case 0: return .orderedSame
        case 1:
            func number(_ v: PropertyValue) -> PredicateSemantics.Number {
                if case let .object(id) = v { return .integer(id.primaryKey) }
                return PredicateSemantics.number(v) ?? .integer(0)
            }
            return PredicateSemantics.numericCompare(number(a), number(b))
        case 2:
            func text(_ v: PropertyValue) -> String {
                switch v {
                case let .string(s): s
                case let .url(u): u.absoluteString
                default: ""
                }
            }
            switch comparison {
            case .binary: return PredicateSemantics.binaryCompare(text(a), text(b))
            case .caseInsensitive: return StringFolding.caseInsensitiveCompare(text(a), text(b))
            case .localizedStandard: return StringFolding.localizedStandardCompare(text(a), text(b))
            }
        default:
            func bytes(_ v: PropertyValue) -> Data {
                switch v {
                case let .data(d): d
                case let .uuid(u): PredicateSemantics.uuidBytes(u)
                default: Data()
                }
            }
            return PredicateSemantics.bytesCompare(bytes(a), bytes(b))
        }
    }
}
