import Foundation
import Nimbus

extension StoreCommand.Fetch {
    /// The name of the group size in grouped results and in `--having`.
    static let countName = "count"

    /// `--group-by` (with `--having` and `--count`): a dictionary fetch grouped by the keys,
    /// as Core Data's `propertiesToGroupBy` and `havingPredicate` do it.
    func fetchGroups(_ objectRequest: FetchRequest<ManagedObject>, session: StoreSession) throws {
        guard !groupBy.isEmpty else { throw CLIError("--having needs --group-by KEY") }
        let entity = try session.model.entity(named: entity)
        for key in groupBy {
            let first = String(key.split(separator: ".").first ?? "")
            guard entity.propertiesByName[first] != nil else {
                throw CLIError("--group-by \(key): \(entity.name) has no property \(first)")
            }
        }
        var request = FetchRequest<[String: Any]>(entityName: entity.name)
        request.predicate = objectRequest.predicate
        let sorts = objectRequest.sortDescriptors.isEmpty ? groupBy.map { FetchSortDescriptor($0) } : objectRequest.sortDescriptors
        // Sorting by the group size happens after the groups are counted, so the slice too.
        let sortsByCount = sorts.contains { $0.keyPath == Self.countName }
        if sortsByCount {
            guard count else { throw CLIError("--sort count needs --count") }
        } else {
            request.sortDescriptors = sorts
            request.fetchLimit = objectRequest.fetchLimit
            request.fetchOffset = objectRequest.fetchOffset
        }
        var properties = groupBy.map(FetchProperty.property)
        if count {
            // Count the objects (SELF), not the key's non-nil values: the nil group has members too.
            let size = QueryExpression.function("count:", [.evaluatedObject])
            properties.append(.expression(name: Self.countName, size, type: .integer64))
        }
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy.map(FetchProperty.property)
        if let having {
            guard count || having.range(of: #"\bcount\b"#, options: .regularExpression) == nil else {
                throw CLIError("--having \"\(having)\" uses count: add --count so each group's size is fetched")
            }
            request.havingPredicate = try QueryPredicate(format: having)
        }
        try session.context.performAndWait { () throws in
            var rows = try session.context.fetch(request)
            if sortsByCount {
                rows.sort { a, b in Self.areInIncreasingOrder(a, b, by: sorts) }
                rows = Array(rows.dropFirst(objectRequest.fetchOffset))
                if objectRequest.fetchLimit > 0 { rows = Array(rows.prefix(objectRequest.fetchLimit)) }
            }
            let groups = rows.map { group in
                var row: [String: Any] = [:]
                for property in properties { row[property.name] = ObjectJSON.json(group[property.name], type: nil) }
                return row
            }
            if json {
                print(try ObjectJSON.serialize(groups))
            } else {
                for group in groups { print(ObjectJSON.text(for: group)) }
            }
        }
    }

    /// Orders grouped rows by their values: nil first, then numbers, text and dates.
    static func areInIncreasingOrder(_ a: [String: Any], _ b: [String: Any], by sorts: [FetchSortDescriptor]) -> Bool {
        for sort in sorts {
            let order = compare(a[sort.keyPath], b[sort.keyPath])
            if order != .orderedSame { return (order == .orderedAscending) == sort.ascending }
        }
        return false
    }

    private static func compare(_ a: Any?, _ b: Any?) -> ComparisonResult {
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        default: break
        }
        func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult { x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        if let x = number(a!), let y = number(b!) { return order(x, y) }
        if let x = a as? Date, let y = b as? Date { return order(x, y) }
        return order("\(a!)", "\(b!)")
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let v as Int64: Double(v)
        case let v as Int: Double(v)
        case let v as Int32: Double(v)
        case let v as Int16: Double(v)
        case let v as Double: v
        case let v as Decimal: NSDecimalNumber(decimal: v).doubleValue
        default: nil
        }
    }
}
