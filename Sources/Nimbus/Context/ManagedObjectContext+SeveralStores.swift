import Foundation

// Fetches over several stores: each store answers for its rows, and what SQL would do over
// one table (ordering, slicing, distinct, grouping, aggregates, having) is done again over
// the stores' answers together, so results match those of one store holding every row.

extension ManagedObjectContext {
    /// The stores a request reads: those holding the entity, narrowed to `affectedStores`.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` when an affected store is
    ///   not in the coordinator.
    func stores(for entity: EntityDescription, affectedBy affected: [PersistentStore]?) throws -> [PersistentStore] {
        let all = try persistentStoreCoordinator.stores(for: entity)
        guard let affected else { return all }
        for store in affected where !persistentStoreCoordinator.persistentStores.contains(where: { $0 === store }) {
            throw NimbusError(.invalidArgument, "affectedStores names the store \(store.identifier), which is not in this context's coordinator")
        }
        return all.filter { store in affected.contains { $0 === store } }
    }

    /// Dictionary results over several stores.
    func fetchDictionaries<Result>(_ request: FetchRequest<Result>, entity: EntityDescription,
                                   across stores: [PersistentStore]) throws -> [[String: Any]] {
        var perStore = request
        perStore.fetchLimit = 0
        perStore.fetchOffset = 0
        perStore.havingPredicate = nil
        // The stores' rows are ordered together below; a store sorts nothing (and could not
        // sort by an aggregate's name before its groups are combined).
        perStore.sortDescriptors = []
        var properties = request.propertiesToFetch ?? entity.properties.compactMap { $0.attribute.map { .property($0.name) } }
        let names = Set(properties.map(\.name))
        // Sort keys that are not fetched are fetched too, then dropped.
        let hidden = request.sortDescriptors.map(\.keyPath).filter { !names.contains($0) }
        if request.propertiesToGroupBy == nil || request.propertiesToGroupBy!.isEmpty {
            properties += hidden.map { FetchProperty.property($0) }
        }
        // An average over several stores is rebuilt from each store's count.
        var averages: [(name: String, count: String)] = []
        for property in properties {
            if case let .expression(name, .function("average:", arguments), _) = property {
                let count = "__count_\(name)"
                averages.append((name, count))
                properties.append(.expression(name: count, .function("count:", arguments), type: .integer64))
            }
        }
        perStore.propertiesToFetch = properties
        var rows: [[String: Any]] = []
        for store in stores {
            var one = perStore
            one.affectedStores = [store]
            rows += try fetchDictionaries(one, entity: entity)
        }
        // The counts added for averages are combined after the averages they weigh.
        let averageCountNames = Set(averages.map(\.count))
        let aggregates = Dictionary(uniqueKeysWithValues: properties.compactMap { property -> (String, String)? in
            if case let .expression(name, .function(function, _), _) = property, !averageCountNames.contains(name),
               ["count:", "sum:", "min:", "max:", "average:"].contains(function) { return (name, function) }
            return nil
        })
        let grouped = !(request.propertiesToGroupBy ?? []).isEmpty || !aggregates.isEmpty
        if grouped {
            rows = Self.combineGroups(rows, groupBy: (request.propertiesToGroupBy ?? []).map(\.name), aggregates: aggregates, averages: averages)
            if let having = request.havingPredicate {
                rows = try rows.filter { try having.evaluate(with: $0) }
            }
        } else if request.returnsDistinctResults {
            var seen: Set<[PropertyValue]> = []
            let keys = properties.map(\.name)
            rows = rows.filter { row in seen.insert(keys.map { Self.propertyValue(row[$0]) }).inserted }
        }
        if !request.sortDescriptors.isEmpty {
            rows.sort { a, b in
                for sort in request.sortDescriptors {
                    var order = FetchSortDescriptor.compare(Self.propertyValue(a[sort.keyPath]), Self.propertyValue(b[sort.keyPath]), comparison: sort.comparison)
                    if !sort.ascending { order = order.reversed }
                    if order != .orderedSame { return order == .orderedAscending }
                }
                return false
            }
        }
        let dropped = Set(hidden).union(averages.map(\.count))
        if !dropped.isEmpty { rows = rows.map { $0.filter { !dropped.contains($0.key) } } }
        if request.fetchOffset > 0 { rows = Array(rows.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { rows = Array(rows.prefix(request.fetchLimit)) }
        return rows
    }

    /// Merges the stores' groups that share group-by values: counts and sums add up, minima
    /// and maxima compare, averages weigh by count.
    private static func combineGroups(_ rows: [[String: Any]], groupBy: [String], aggregates: [String: String],
                                      averages: [(name: String, count: String)]) -> [[String: Any]] {
        var order: [[PropertyValue]] = []
        var groups: [[PropertyValue]: [String: Any]] = [:]
        let averageCounts = Dictionary(uniqueKeysWithValues: averages.map { ($0.name, $0.count) })
        for row in rows {
            let key = groupBy.map { propertyValue(row[$0]) }
            guard var merged = groups[key] else {
                groups[key] = row
                order.append(key)
                continue
            }
            for (name, function) in aggregates {
                let old = propertyValue(merged[name])
                let new = propertyValue(row[name])
                switch function {
                case "count:", "sum:":
                    merged[name] = add(merged[name], row[name])
                case "min:":
                    if old.isNull || (!new.isNull && FetchSortDescriptor.compare(new, old, comparison: .binary) == .orderedAscending) { merged[name] = row[name] }
                case "max:":
                    if old.isNull || (!new.isNull && FetchSortDescriptor.compare(new, old, comparison: .binary) == .orderedDescending) { merged[name] = row[name] }
                case "average:":
                    guard let countKey = averageCounts[name] else { continue }
                    let n1 = number(merged[countKey]), n2 = number(row[countKey])
                    if n1 + n2 > 0 { merged[name] = (number(merged[name]) * n1 + number(row[name]) * n2) / (n1 + n2) }
                default:
                    continue
                }
            }
            for (_, count) in averages { merged[count] = add(merged[count], row[count]) }
            groups[key] = merged
        }
        return order.map { groups[$0]! }
    }

    private static func add(_ a: Any?, _ b: Any?) -> Any? {
        switch (propertyValue(a), propertyValue(b)) {
        case (.null, _): b
        case (_, .null): a
        case let (.integer(x), .integer(y)): (a is Int) ? Int(x + y) as Any : x + y
        default: number(a) + number(b)
        }
    }

    private static func number(_ value: Any?) -> Double {
        switch propertyValue(value) {
        case let .integer(v): Double(v)
        case let .double(v): v
        case let .decimal(v): NSDecimalNumber(decimal: v).doubleValue
        case let .bool(v): v ? 1 : 0
        default: 0
        }
    }

    static func propertyValue(_ value: Any?) -> PropertyValue {
        guard let value = PredicateOperand.unwrap(value) else { return .null }
        if let id = value as? ManagedObjectID { return .object(id) }
        return (try? PredicateConstants.constant(from: value)) ?? .null
    }
}
