import BenchmarkScenarios
import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// Points for the bounding-box scenarios: a `Point` entity (`ZPOINT`) with required
/// `latitude` and `longitude` doubles, uniformly spread by a seeded generator, and either an
/// R-tree fetch index on both (`Z_POINT_BYLOCATION`) or the best binary index for a box,
/// the compound `(latitude, longitude)` index (`Z_POINT_BYLATLON`).
enum PointStore {
    static func model(rTree: Bool) -> ManagedObjectModel {
        try! ManagedObjectModel {
            EntityDescription("Point") {
                AttributeDescription("latitude", .double, isOptional: false, defaultValue: 0.0)
                AttributeDescription("longitude", .double, isOptional: false, defaultValue: 0.0)
                AttributeDescription("name", .string)
                if rTree {
                    FetchIndexDescription(name: "byLocation", elements: [.init("latitude", collationType: .rTree),
                                                                         .init("longitude", collationType: .rTree)])
                } else {
                    FetchIndexDescription(name: "byLatLon", elements: [.init("latitude"), .init("longitude")])
                }
            }
        }
    }

    /// The box every run queries: about 0.1 % of the points (5.69° × 11.38°).
    static let box = (minLatitude: 10.0, maxLatitude: 15.69, minLongitude: 20.0, maxLongitude: 31.38)

    /// A small deterministic generator (SplitMix64), so every fixture holds the same points.
    struct Generator {
        var state: UInt64
        mutating func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
    }

    static func coordinator(_ file: URL, rTree: Bool) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model(rTree: rTree))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: file))
        return coordinator
    }

    /// Fills a store with `rows` points by batch inserts (the R-tree's triggers fill it too);
    /// returns how many fall in ``box``.
    static func fill(_ file: URL, rows: Int, rTree: Bool) throws -> Int64 {
        do {
            let context = ItemStore.context(try coordinator(file, rTree: rTree))
            var generator = Generator(state: 42)
            try context.performAndWait { () throws in
                for start in stride(from: 0, to: rows, by: 100_000) {
                    let objects: [[String: Any]] = (start..<min(start + 100_000, rows)).map { index in
                        ["latitude": generator.next() * 180 - 90, "longitude": generator.next() * 360 - 180, "name": "point \(index)"]
                    }
                    _ = try context.execute(BatchInsertRequest(entityName: "Point", objects: objects))
                }
            }
        }
        let raw = try RawConnection(file)
        try raw.checkpoint()
        return try raw.integer("""
            SELECT count(*) FROM ZPOINT NOT INDEXED WHERE ZLATITUDE > \(box.minLatitude) AND ZLATITUDE < \(box.maxLatitude) \
            AND ZLONGITUDE > \(box.minLongitude) AND ZLONGITUDE < \(box.maxLongitude)
            """)
    }
}

extension QueryScenario {
    /// The seed's location query, `latitude > %@ AND latitude < %@ AND longitude > %@ AND
    /// longitude < %@`, on `rows` points: Nimbus through its R-tree and through the best
    /// binary index, raw SQLite C and GRDB with the same two plans written by hand (on the
    /// same files). Results are object IDs (primary keys); every run's count is checked.
    static func boundingBox(rows published: Int, runs: Int) -> QueryScenario {
        QueryScenario(
            key: "boundingBox\(published / 1000)k",
            title: "bounding-box query (≈0.1 % of points) on \(ReportFormatting.grouped(published)) points: R-tree against the best binary index",
            runs: runs
        ) { fixtures in
            let rows = published / fixtures.divisor
            var expected: Int64 = 0
            let rTreeFile = try fixtures.points(rows: rows, rTree: true) { expected = $0 }
            let binaryFile = try fixtures.points(rows: rows, rTree: false) { _ in }
            expected = fixtures.pointsInBox[rows] ?? expected
            let box = PointStore.box
            var count = 0
            func verify(_ who: String) throws {
                try check(Int64(count) == expected, "\(who) found \(count) points, not \(expected)")
                count = 0
            }

            func nimbus(_ file: URL, rTree: Bool) throws -> QueryCase {
                let coordinator = try PointStore.coordinator(file, rTree: rTree)
                var context: ManagedObjectContext?
                return QueryCase(rTree ? "Nimbus, R-tree" : "Nimbus, binary index", rows: rows,
                                 prepare: { context = ItemStore.context(coordinator) }, run: {
                    let context = context!
                    count = try context.performAndWait { () throws in
                        var request = FetchRequest<ManagedObjectID>(entityName: "Point")
                        request.predicate = try QueryPredicate(format: "latitude > %@ AND latitude < %@ AND longitude > %@ AND longitude < %@",
                                                               box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude)
                        return try context.fetch(request).count
                    }
                }, verify: { try verify("Nimbus"); context = nil })
            }

            let boxCondition = "ZLATITUDE > ? AND ZLATITUDE < ? AND ZLONGITUDE > ? AND ZLONGITUDE < ?"
            let rTreeSQL = """
                SELECT Z_PK FROM ZPOINT WHERE Z_PK IN (SELECT id FROM Z_POINT_BYLOCATION WHERE ZLATITUDE_MAX >= ?1 AND ZLATITUDE_MIN <= ?2 \
                AND ZLONGITUDE_MAX >= ?3 AND ZLONGITUDE_MIN <= ?4) AND ZLATITUDE > ?1 AND ZLATITUDE < ?2 AND ZLONGITUDE > ?3 AND ZLONGITUDE < ?4
                """
            let binarySQL = "SELECT Z_PK FROM ZPOINT WHERE " + boxCondition
            func raw(_ file: URL, rTree: Bool) throws -> QueryCase {
                let connection = try RawConnection(file)
                return QueryCase(rTree ? "raw SQLite C, R-tree" : "raw SQLite C, binary index", rows: rows, run: {
                    let statement = try connection.prepare(rTree ? rTreeSQL : binarySQL)
                    defer { sqlite3_finalize(statement) }
                    for (i, value) in [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude].enumerated() {
                        sqlite3_bind_double(statement, Int32(i + 1), value)
                    }
                    var keys: [Int64] = []
                    while sqlite3_step(statement) == SQLITE_ROW { keys.append(sqlite3_column_int64(statement, 0)) }
                    count = keys.count
                }, verify: { try verify("raw C") })
            }
            func grdb(_ file: URL, rTree: Bool) throws -> QueryCase {
                let pool = try DatabasePool(path: file.path)
                return QueryCase(rTree ? "GRDB, R-tree" : "GRDB, binary index", rows: rows, run: {
                    count = try pool.read { db in
                        try Int64.fetchAll(db, sql: rTree ? rTreeSQL : binarySQL,
                                           arguments: [box.minLatitude, box.maxLatitude, box.minLongitude, box.maxLongitude]).count
                    }
                }, verify: { try verify("GRDB") })
            }
            return [try nimbus(rTreeFile, rTree: true), try nimbus(binaryFile, rTree: false),
                    try raw(rTreeFile, rTree: true), try raw(binaryFile, rTree: false),
                    try grdb(rTreeFile, rTree: true), try grdb(binaryFile, rTree: false)]
        }
    }

    nonisolated(unsafe) public static let boundingBoxes: [QueryScenario] = [
        boundingBox(rows: 10_000, runs: 51), boundingBox(rows: 100_000, runs: 31), boundingBox(rows: 1_000_000, runs: 21),
    ]
}

extension QueryFixtures {
    /// A store of `rows` points with an R-tree or the compound binary index; `found` gets how
    /// many points lie in the box (computed by a full scan when the fixture is built).
    func points(rows: Int, rTree: Bool, found: (Int64) -> Void) throws -> URL {
        var inBox: Int64?
        let file = try fixture("points-\(rows)-\(rTree ? "rtree" : "binary")") { inBox = try PointStore.fill($0, rows: rows, rTree: rTree) }
        if let inBox { pointsInBox[rows] = inBox; found(inBox) }
        return file
    }
}
