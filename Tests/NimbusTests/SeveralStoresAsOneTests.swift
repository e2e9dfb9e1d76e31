import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Several stores answer as one store holding every row would: the same random rows, split
/// between two stores and kept whole in one, asked the same requests.
@Suite("Several stores answer as one")
struct SeveralStoresAsOneTests {
    struct Row {
        let n: Int64
        let group: String?
        let inCloud: Bool
    }

    static func rows(seed: UInt64) -> [Row] {
        var random = SeededGenerator(seed: seed)
        return (0..<80).map { _ in
            Row(n: Int64.random(in: -3...12, using: &random), group: ["a", "b", "c", nil].randomElement(using: &random)!,
                inCloud: Bool.random(using: &random))
        }
    }

    /// The same rows split between two stores, and all in one.
    static func contexts(_ rows: [Row]) throws -> (split: ManagedObjectContext, whole: ManagedObjectContext, stacks: [AnyObject]) {
        let split = try TwoStoreStack()
        let splitContext = split.newContext()
        let wholeFolder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: split.model)
        var description = PersistentStoreDescription(url: wholeFolder.file("Whole.sqlite"))
        description.configuration = "Cloud"
        try coordinator.addPersistentStore(with: description)
        let wholeContext = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try splitContext.performAndWait { () throws in
            for row in rows {
                let item = try splitContext.insert("Item", ["n": row.n, "group": row.group as Any])
                splitContext.assign(item, to: row.inCloud ? split.cloud : split.local)
            }
            try splitContext.save()
        }
        try wholeContext.performAndWait { () throws in
            for row in rows { _ = try wholeContext.insert("Item", ["n": row.n, "group": row.group as Any]) }
            try wholeContext.save()
        }
        return (splitContext, wholeContext, [split, wholeFolder])
    }

    /// Object fetches, described by their answers as (n, group) values.
    static let objectRequests: [(String, @Sendable (inout FetchRequest<ManagedObject>) throws -> Void)] = [
        ("all by n, group", { $0.sortDescriptors = [FetchSortDescriptor("n"), FetchSortDescriptor("group")] }),
        ("descending, offset 7, limit 11", {
            $0.sortDescriptors = [FetchSortDescriptor("n", ascending: false), FetchSortDescriptor("group", ascending: false)]
            $0.fetchOffset = 7
            $0.fetchLimit = 11
        }),
        ("n > 4 by group then n, limit 9", {
            $0.predicate = try QueryPredicate(format: "n > 4")
            $0.sortDescriptors = [FetchSortDescriptor("group"), FetchSortDescriptor("n")]
            $0.fetchLimit = 9
        }),
        ("group == nil or n < 0, offset 2", {
            $0.predicate = try QueryPredicate(format: "group == nil OR n < 0")
            $0.sortDescriptors = [FetchSortDescriptor("n"), FetchSortDescriptor("group")]
            $0.fetchOffset = 2
        }),
        ("offset past the end", {
            $0.sortDescriptors = [FetchSortDescriptor("n"), FetchSortDescriptor("group")]
            $0.fetchOffset = 500
        }),
    ]

    static func dictionaryRequest(_ configure: (inout FetchRequest<[String: Any]>) throws -> Void) rethrows -> FetchRequest<[String: Any]> {
        var request = FetchRequest<[String: Any]>(entityName: "Item")
        request.resultType = .dictionary
        try configure(&request)
        return request
    }

    static func aggregate(_ name: String, _ function: String, type: AttributeType = .integer64) -> FetchProperty {
        .expression(name: name, .function(function, [.keyPath(["n"])]), type: type)
    }

    static let dictionaryRequests: [(String, FetchRequest<[String: Any]>)] = [
        ("distinct groups", dictionaryRequest {
            $0.propertiesToFetch = ["group"]
            $0.returnsDistinctResults = true
            $0.sortDescriptors = [FetchSortDescriptor("group")]
        }),
        ("distinct (group, n), descending, offset 3, limit 10", dictionaryRequest {
            $0.propertiesToFetch = ["group", "n"]
            $0.returnsDistinctResults = true
            $0.sortDescriptors = [FetchSortDescriptor("group", ascending: false), FetchSortDescriptor("n", ascending: false)]
            $0.fetchOffset = 3
            $0.fetchLimit = 10
        }),
        ("group by group: count, sum, min, max, average", dictionaryRequest {
            $0.propertiesToGroupBy = ["group"]
            $0.propertiesToFetch = ["group", aggregate("count", "count:"), aggregate("sum", "sum:"), aggregate("min", "min:"),
                                    aggregate("max", "max:"), aggregate("average", "average:", type: .double)]
            $0.sortDescriptors = [FetchSortDescriptor("group")]
        }),
        ("group by group having sum > 20, by sum descending", dictionaryRequest {
            $0.propertiesToGroupBy = ["group"]
            $0.propertiesToFetch = ["group", aggregate("sum", "sum:"), aggregate("count", "count:")]
            $0.havingPredicate = try! QueryPredicate(format: "sum > 20")
            $0.sortDescriptors = [FetchSortDescriptor("sum", ascending: false), FetchSortDescriptor("group")]
        }),
        ("group by (group, n): count, limit 7", dictionaryRequest {
            $0.propertiesToGroupBy = ["group", "n"]
            $0.propertiesToFetch = ["group", "n", aggregate("count", "count:")]
            $0.sortDescriptors = [FetchSortDescriptor("group"), FetchSortDescriptor("n")]
            $0.fetchLimit = 7
        }),
        ("totals without grouping", dictionaryRequest {
            $0.propertiesToFetch = [aggregate("count", "count:"), aggregate("sum", "sum:"), aggregate("min", "min:"),
                                    aggregate("max", "max:"), aggregate("average", "average:", type: .double)]
        }),
    ]

    /// A dictionary result as comparable text: keys sorted, numbers as integers when whole
    /// (a sum over several stores may come back as another integer type), averages rounded.
    static func text(_ rows: [[String: Any]]) -> [String] {
        rows.map { row in
            row.keys.sorted().map { key -> String in
                let value: String = switch row[key] {
                case let double as Double: double.rounded() == double ? String(Int64(double)) : String(format: "%.9f", double)
                case let int as Int: String(int)
                case let int as Int64: String(int)
                case let string as String: "'\(string)'"
                case nil: "nil"
                case let other?: "\(other)"
                }
                return "\(key)=\(value)"
            }.joined(separator: " ")
        }
    }

    @Test("object fetches and counts", arguments: [UInt64(1), 2, 3, 4])
    func objects(seed: UInt64) throws {
        let (split, whole, stacks) = try Self.contexts(Self.rows(seed: seed))
        defer { withExtendedLifetime(stacks) {} }
        for (name, configure) in Self.objectRequests {
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            try configure(&request)
            func answer(_ context: ManagedObjectContext) throws -> (rows: [String], count: Int) {
                try context.performAndWait {
                    let rows = try context.fetch(request).map { "\($0.value(forKey: "n") as? Int64 ?? -99) \($0.value(forKey: "group") as? String ?? "nil")" }
                    return (rows, try context.count(for: request))
                }
            }
            let (splitAnswer, wholeAnswer) = (try answer(split), try answer(whole))
            #expect(splitAnswer.rows == wholeAnswer.rows, "seed \(seed): \(name)")
            #expect(splitAnswer.count == wholeAnswer.count, "seed \(seed): count of \(name)")
        }
    }

    @Test("distinct, grouped and aggregate dictionaries", arguments: [UInt64(1), 2, 3, 4])
    func dictionaries(seed: UInt64) throws {
        let (split, whole, stacks) = try Self.contexts(Self.rows(seed: seed))
        defer { withExtendedLifetime(stacks) {} }
        for (name, request) in Self.dictionaryRequests {
            let splitAnswer = try split.performAndWait { try split.fetch(request) }
            let wholeAnswer = try whole.performAndWait { try whole.fetch(request) }
            #expect(Self.text(splitAnswer) == Self.text(wholeAnswer), "seed \(seed): \(name)")
        }
    }
}
