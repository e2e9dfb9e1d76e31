import BenchmarkScenarios
import Foundation
import Nimbus

/// The rows every query scenario works on: an `Item` entity (`ZITEM`) with a category (20
/// distinct values), an integer score (a permutation of `0..<rows`, so `score < n` matches
/// exactly n rows), a title and a flag, and fetch indexes on `score` and `category`.
public enum ItemStore {
    public static let categories = 20

    static let model: ManagedObjectModel = try! ManagedObjectModel {
        EntityDescription("Item") {
            AttributeDescription("category", .string)
            AttributeDescription("score", .integer64)
            AttributeDescription("title", .string)
            AttributeDescription("flag", .boolean)
            FetchIndexDescription(name: "byScore", elements: [.init("score")])
            FetchIndexDescription(name: "byCategory", elements: [.init("category")])
        }
    }

    /// The `index`th item of `rows`: `score` walks `0..<rows` in a scattered order (7919 is a
    /// prime that divides neither 10^6 nor 2×10^5).
    static func values(_ index: Int, of rows: Int) -> (category: String, score: Int64, title: String) {
        ("category-\(index % categories)", Int64((index &* 7919) % rows), "Item number \(index)")
    }

    /// A coordinator on the file with one SQLite store (GRDB `DatabasePool`: WAL,
    /// synchronous=NORMAL).
    static func coordinator(_ file: URL, history: Bool = false) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: file)
        description.persistentHistoryTracking = history
        try coordinator.addPersistentStore(with: description)
        return coordinator
    }

    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    /// Fills a new store with `rows` items by batch inserts of `chunk` rows, leaving the
    /// file checkpointed (no `-wal`) so it can be copied.
    static func fill(_ file: URL, rows: Int, chunk: Int = 100_000, history: Bool = false,
                     afterFirstChunk: ((ManagedObjectContext) throws -> Void)? = nil) throws {
        do {
            let context = context(try coordinator(file, history: history))
            try context.performAndWait { () throws in
                for start in stride(from: 0, to: rows, by: chunk) {
                    let objects: [[String: Any]] = (start..<min(start + chunk, rows)).map { index in
                        let (category, score, title) = values(index, of: rows)
                        return ["category": category, "score": score, "title": title, "flag": false]
                    }
                    _ = try context.execute(BatchInsertRequest(entityName: "Item", objects: objects))
                    if start == 0 { try afterFirstChunk?(context) }
                }
            }
        }
        let raw = try RawConnection(file)
        try raw.checkpoint()
        let count = try raw.integer("SELECT count(*) FROM ZITEM")
        try check(count == rows, "the fixture has \(count) items, not \(rows)")
    }
}

/// The databases the scenarios read or copy, each built once on first use.
public final class QueryFixtures: @unchecked Sendable {
    public let scratch: QueryScratch
    /// Divides every scenario's rows (1: the published sizes).
    public let divisor: Int
    private var built: [String: URL] = [:]
    /// Points inside ``PointStore/box`` per fixture size (bounding-box scenarios).
    var pointsInBox: [Int: Int64] = [:]
    /// The token of the history fixture's first transaction.
    public private(set) var historyToken: PersistentHistoryToken?

    public init(divisor: Int = 1) throws {
        scratch = try QueryScratch()
        self.divisor = divisor
    }

    func fixture(_ name: String, build: (URL) throws -> Void) throws -> URL {
        if let file = built[name] { return file }
        let file = scratch.newFile(name)
        let clock = ContinuousClock()
        let elapsed = try clock.measure { try build(file) }
        FileHandle.standardError.write(Data("built fixture \(name) in \(elapsed)\n".utf8))
        built[name] = file
        return file
    }

    /// 1,000,000 items (read-only).
    public func million() throws -> URL {
        try fixture("items-1M") { try ItemStore.fill($0, rows: 1_000_000 / divisor) }
    }

    /// 200,000 items: batch scenarios change the 100,000 with `score < 100,000` in a copy.
    public func batch() throws -> URL {
        try fixture("items-200k") { try ItemStore.fill($0, rows: 200_000 / divisor) }
    }

    /// A store with history: one transaction of 10,000 inserts, then ten more of 10,000
    /// (100,000 changes after the first transaction's token, ``historyToken``).
    public func history() throws -> URL {
        try fixture("history-110k") { file in
            try ItemStore.fill(file, rows: 110_000 / divisor, chunk: 10_000 / divisor, history: true) { context in
                self.historyToken = try context.persistentStoreCoordinator.currentPersistentHistoryToken()
            }
        }
    }
}
