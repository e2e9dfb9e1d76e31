import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Fetch indexes")
struct FetchIndexTests {
    static func model(indexes: [FetchIndexDescription] = defaultIndexes, versionHashModifier: String? = nil,
                      latitudeOptional: Bool = false) throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Photo", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("takenAt", .date),
                AttributeDescription("views", .integer64, defaultValue: 0),
                AttributeDescription("latitude", .double, isOptional: latitudeOptional, defaultValue: 0.0),
                AttributeDescription("longitude", .double, isOptional: false, defaultValue: 0.0),
                AttributeDescription("tags", .transformable),
            ], fetchIndexes: indexes, versionHashModifier: versionHashModifier),
        ])
    }

    static let defaultIndexes: [FetchIndexDescription] = [
        FetchIndexDescription(name: "byTitle", elements: [.init("title")]),
        FetchIndexDescription(name: "recent", elements: [.init("takenAt", ascending: false), .init("views")]),
        FetchIndexDescription(name: "popular", elements: [.init("views", ascending: false)], partialIndexPredicate: "views > 100"),
        FetchIndexDescription(name: "byLocation", elements: [.init("latitude", collationType: .rTree), .init("longitude", collationType: .rTree)]),
    ]

    /// `sqlite_master`'s SQL of every object whose name starts with `Z_PHOTO_`.
    static func schemaObjects(_ url: URL) throws -> [String: String] {
        let queue = try DatabaseQueue(path: url.path)
        return try queue.read { db in
            var result: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE name LIKE 'Z\\_PHOTO\\_%' ESCAPE '\\' AND sql IS NOT NULL") {
                result[row[0]] = row[1]
            }
            return result
        }
    }

    @Test("binary, descending, compound and partial indexes and an R-tree with its triggers are created, identifiers quoted")
    func createsIndexes() throws {
        let stack = try TestStack(model: try Self.model())
        let objects = try Self.schemaObjects(stack.url)
        #expect(objects["Z_PHOTO_BYTITLE"] == #"CREATE INDEX "Z_PHOTO_BYTITLE" ON "ZPHOTO" ("ZTITLE")"#)
        #expect(objects["Z_PHOTO_RECENT"] == #"CREATE INDEX "Z_PHOTO_RECENT" ON "ZPHOTO" ("ZTAKENAT" DESC, "ZVIEWS")"#)
        #expect(objects["Z_PHOTO_POPULAR"] == #"CREATE INDEX "Z_PHOTO_POPULAR" ON "ZPHOTO" ("ZVIEWS" DESC) WHERE ("ZPHOTO"."ZVIEWS" > 100)"#)
        #expect(objects["Z_PHOTO_BYLOCATION"] == #"CREATE VIRTUAL TABLE "Z_PHOTO_BYLOCATION" USING rtree(id, "ZLATITUDE_MIN", "ZLATITUDE_MAX", "ZLONGITUDE_MIN", "ZLONGITUDE_MAX")"#)
        #expect(objects["Z_PHOTO_BYLOCATION_INSERT"]?.contains(#"AFTER INSERT ON "ZPHOTO""#) == true)
        #expect(objects["Z_PHOTO_BYLOCATION_UPDATE"]?.contains(#"AFTER UPDATE OF Z_ENT, "ZLATITUDE", "ZLONGITUDE" ON "ZPHOTO""#) == true)
        #expect(objects["Z_PHOTO_BYLOCATION_DELETE"] != nil)
    }

    @Test("saves, updates, deletes and batch requests keep the R-tree current in the same transaction")
    func rTreeFollowsWrites() throws {
        let stack = try TestStack(model: try Self.model())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let paris = try context.insert("Photo", ["title": "Paris", "latitude": 48.85, "longitude": 2.35])
            _ = try context.insert("Photo", ["title": "Oslo", "latitude": 59.91, "longitude": 10.75])
            try context.save()
            paris.setValue(45.76, forKey: "latitude")   // now Lyon
            try context.save()
            var oslo = FetchRequest<ManagedObject>(entityName: "Photo")
            oslo.predicate = try QueryPredicate(format: "title == 'Oslo'")
            try context.execute(BatchDeleteRequest(fetchRequest: oslo))
        }
        let rows = try DatabaseQueue(path: stack.url.path).read { db in
            try Row.fetchAll(db, sql: #"SELECT id, "ZLATITUDE_MIN" FROM "Z_PHOTO_BYLOCATION""#)
        }
        #expect(rows.count == 1)
        #expect(abs((rows.first?[1] as Double? ?? 0) - 45.76) < 0.001)
    }

    @Test("a bounding-box predicate goes through the R-tree and finds exactly the rows inside")
    func boundingBox() throws {
        let stack = try TestStack(model: try Self.model(), recordSQL: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for lat in stride(from: -80.0, through: 80.0, by: 10.0) {
                for lon in stride(from: -170.0, through: 170.0, by: 10.0) {
                    _ = try context.insert("Photo", ["title": "\(lat),\(lon)", "latitude": lat, "longitude": lon])
                }
            }
            try context.save()
            stack.store.resetRecordedSQL()
            var request = FetchRequest<ManagedObject>(entityName: "Photo")
            request.predicate = try QueryPredicate(format: "latitude > %@ AND latitude < %@ AND longitude > %@ AND longitude < %@", 30.0, 60.0, -10.0, 20.0)
            let found = try context.fetch(request)
            #expect(Set(found.compactMap { $0.value(forKey: "title") as? String })
                == ["40.0,0.0", "40.0,10.0", "50.0,0.0", "50.0,10.0"])
            let select = try #require(stack.store.recordedSQL?.first { $0.hasPrefix("SELECT") && $0.contains(#"FROM "ZPHOTO" t0"#) })
            #expect(select.contains(#"t0.Z_PK IN (SELECT id FROM "Z_PHOTO_BYLOCATION" WHERE "ZLATITUDE_MAX" >= ? AND "ZLATITUDE_MIN" <= ? AND "ZLONGITUDE_MAX" >= ? AND "ZLONGITUDE_MIN" <= ?)"#))

            // BETWEEN, a one-sided range and reversed operands use it too; the result is exact.
            request.predicate = try QueryPredicate(format: "latitude BETWEEN {-10, 10} AND 160 <= longitude")
            #expect(try context.count(for: request) == 3 * 2)
            request.predicate = try QueryPredicate(format: "latitude >= 80")
            #expect(try context.count(for: request) == 35)
            // An OR cannot be narrowed by one range: it compiles plainly and stays correct.
            stack.store.resetRecordedSQL()
            request.predicate = try QueryPredicate(format: "latitude > 75 OR longitude > 165")
            #expect(try context.count(for: request) == 35 + 17 - 1)
            #expect(stack.store.recordedSQL?.contains { $0.contains("Z_PHOTO_BYLOCATION") } == false)
        }
    }

    @Test("SQLite's query plan shows the R-tree virtual table")
    func queryPlan() throws {
        let stack = try TestStack(model: try Self.model())
        let entity = try stack.model.entity(named: "Photo")
        var compiler = PredicateSQLCompiler(entity: entity, schema: stack.model.schema)
        let condition = try compiler.condition(try QueryPredicate(format: "latitude BETWEEN {1, 2} AND longitude BETWEEN {3, 4}"))
        let details = try DatabaseQueue(path: stack.url.path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT t0.Z_PK FROM ZPHOTO t0 WHERE \(condition)",
                             arguments: StatementArguments(compiler.arguments)).map { $0["detail"] as String }
        }
        #expect(details.contains { $0.contains("Z_PHOTO_BYLOCATION VIRTUAL TABLE INDEX") })
    }

    @Test("invalid fetch indexes are refused with every problem named", arguments: [
        (FetchIndexDescription(name: "byNothing", elements: [.init("missing")]), "names unknown property missing"),
        (FetchIndexDescription(name: "mixed", elements: [.init("title"), .init("latitude", collationType: .rTree)]), "mixes binary and R-tree elements"),
        (FetchIndexDescription(name: "textBox", elements: [.init("title", collationType: .rTree)]), "R-tree element title is a string attribute"),
        (FetchIndexDescription(name: "tagBox", elements: [.init("tags", collationType: .rTree)]), "R-tree element tags is a transformable attribute"),
        (FetchIndexDescription(name: "badPartial", elements: [.init("views")], partialIndexPredicate: "views >"), "malformed partial predicate \"views >\""),
        (FetchIndexDescription(name: "unknownPartial", elements: [.init("views")], partialIndexPredicate: "nope == 1"), "partial predicate that cannot index"),
        (FetchIndexDescription(name: "foldedPartial", elements: [.init("title")], partialIndexPredicate: "title BEGINSWITH[c] 'a'"), "needs Nimbus's SQL functions"),
        (FetchIndexDescription(name: "partialBox", elements: [.init("latitude", collationType: .rTree)], partialIndexPredicate: "views > 1"), "only binary indexes can be partial"),
        (FetchIndexDescription(name: "empty", elements: []), "has no elements"),
    ])
    func invalidIndexes(index: FetchIndexDescription, problem: String) throws {
        let error = try #require(throws: NimbusError.self) { try Self.model(indexes: [index]) }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("fetch index Photo.\(index.name)"))
        #expect(error.message.contains(problem))
    }

    @Test("an R-tree on an optional attribute is refused, and no store is written")
    func optionalRTree() throws {
        let folder = try TemporaryDirectory()
        let error = try #require(throws: NimbusError.self) {
            let model = try Self.model(indexes: [FetchIndexDescription(name: "box", elements: [.init("latitude", collationType: .rTree)])], latitudeOptional: true)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("x.sqlite")))
        }
        #expect(error.message.contains("R-tree element latitude is optional"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.sqlite").path))
    }

    @Test("JSON models round-trip fetch indexes: collation type, order, partial predicate, modifier")
    func codable() throws {
        var indexes = Self.defaultIndexes
        indexes[0].versionHashModifier = "2"
        let model = try Self.model(indexes: indexes)
        let copy = try JSONDecoder().decode(ManagedObjectModel.self, from: try JSONEncoder().encode(model))
        #expect(try copy.entity(named: "Photo").fetchIndexes == indexes)
        #expect(copy.versionHash == model.versionHash)
        let json = #"{"entities":[{"name":"P","attributes":[{"name":"x","type":"integer32","isOptional":false}],"fetchIndexes":[{"name":"box","elements":[{"property":"x","collationType":"RTree"}]}]}]}"#
        let decoded = try JSONDecoder().decode(ManagedObjectModel.self, from: Data(json.utf8))
        #expect(try decoded.entity(named: "P").fetchIndexes.first?.isRTree == true)
    }

    @Test("indexes leave the version hash alone unless an index carries a version hash modifier")
    func versionHash() throws {
        let plain = try Self.model(indexes: [])
        let indexed = try Self.model()
        #expect(plain.versionHash == indexed.versionHash)
        var modified = Self.defaultIndexes
        modified[3].versionHashModifier = "v2"
        #expect(try Self.model(indexes: modified).versionHash != indexed.versionHash)
    }

    @Test("reopening with changed indexes creates, changes and drops them; the R-tree is filled from existing rows")
    func reconcilesOnOpen() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Photos.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model(indexes: [Self.defaultIndexes[0]]))
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                _ = try context.insert("Photo", ["title": "A", "latitude": 1.0, "longitude": 2.0])
                _ = try context.insert("Photo", ["title": "B", "latitude": 50.0, "longitude": 60.0])
                try context.save()
            }
        }
        #expect(Set(try Self.schemaObjects(url).keys) == ["Z_PHOTO_BYTITLE"])
        let changed = [
            FetchIndexDescription(name: "byTitle", elements: [.init("title", ascending: false)]),
            Self.defaultIndexes[3],
        ]
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model(indexes: changed))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let objects = try Self.schemaObjects(url)
        #expect(objects["Z_PHOTO_BYTITLE"] == #"CREATE INDEX "Z_PHOTO_BYTITLE" ON "ZPHOTO" ("ZTITLE" DESC)"#)
        #expect(objects["Z_PHOTO_BYLOCATION"] != nil)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Photo")
            request.predicate = try QueryPredicate(format: "latitude BETWEEN {40, 60} AND longitude BETWEEN {50, 70}")
            #expect(try context.fetch(request).map { $0.value(forKey: "title") as? String } == ["B"])
        }
        // The store's model cache follows, so `nimbus store` sees the same indexes.
        let stored = try ManagedObjectModel.storedModel(at: url)
        #expect(try stored.entity(named: "Photo").fetchIndexes == changed)
        // Dropped again.
        let again = PersistentStoreCoordinator(managedObjectModel: try Self.model(indexes: []))
        try again.addPersistentStore(with: PersistentStoreDescription(url: url))
        #expect(try Self.schemaObjects(url).isEmpty)
    }

    @Test("a version hash modifier on an index migrates the store; indexes and R-trees are rebuilt")
    func migrates() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Photos.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                _ = try context.insert("Photo", ["title": "A", "latitude": 1.0, "longitude": 2.0])
                try context.save()
            }
        }
        var indexes = Self.defaultIndexes
        indexes[3].versionHashModifier = "2"
        let model = try Self.model(indexes: indexes)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        #expect(store.metadata["NSStoreModelVersionHashes"] as? [String: Data] == model.entityVersionHashesByName)
        let objects = try Self.schemaObjects(url)
        #expect(Set(objects.keys).isSuperset(of: ["Z_PHOTO_BYTITLE", "Z_PHOTO_RECENT", "Z_PHOTO_POPULAR", "Z_PHOTO_BYLOCATION", "Z_PHOTO_BYLOCATION_INSERT"]))
        let count = try DatabaseQueue(path: url.path).read { db in try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Z_PHOTO_BYLOCATION""#) }
        #expect(count == 1)
    }

    @Test("explain(_:) returns the fetch's SQL, arguments and a query plan through the R-tree")
    func explain() throws {
        let stack = try TestStack(model: try Self.model())
        let context = stack.newContext()
        var request = FetchRequest<ManagedObject>(entityName: "Photo")
        request.predicate = try QueryPredicate(format: "latitude >= 10 AND latitude <= 20")
        request.sortDescriptors = [FetchSortDescriptor("title")]
        let explanation = try #require(try context.performAndWait { try context.explain(request) }.first)
        #expect(explanation.sql.contains(#"FROM "ZPHOTO" t0 WHERE (t0.Z_PK IN (SELECT id FROM "Z_PHOTO_BYLOCATION" WHERE "ZLATITUDE_MAX" >= ? AND "ZLATITUDE_MIN" <= ?)"#))
        #expect(explanation.arguments == ["10.0", "20.0", "10", "20"])
        #expect(explanation.queryPlan.contains { $0.contains("Z_PHOTO_BYLOCATION VIRTUAL TABLE INDEX") })
        #expect(explanation.storeIdentifier == stack.store.identifier)
    }

    @Test("a read-only store written before its R-tree was declared is fetched without it, with the same results")
    func readOnlyWithoutRTree() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Photos.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model(indexes: []))
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                _ = try context.insert("Photo", ["title": "In", "latitude": 15.0, "longitude": 0.0])
                _ = try context.insert("Photo", ["title": "Out", "latitude": 35.0, "longitude": 0.0])
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Photo")
            request.predicate = try QueryPredicate(format: "latitude BETWEEN {10, 20}")
            #expect(try context.fetch(request).map { $0.value(forKey: "title") as? String } == ["In"])
            #expect(try context.explain(request).first?.sql.contains("Z_PHOTO_BYLOCATION") == false)
        }
        #expect(try Self.schemaObjects(url).isEmpty)
    }

    @Test("a partial index is used by a fetch whose predicate implies its condition")
    func partialIndexUsed() throws {
        let stack = try TestStack(model: try Self.model())
        let context = stack.newContext()
        var request = FetchRequest<ManagedObject>(entityName: "Photo")
        request.predicate = try QueryPredicate(format: "views > 100")
        request.sortDescriptors = [FetchSortDescriptor("views", ascending: false)]
        let plan = try #require(try context.performAndWait { try context.explain(request) }.first).queryPlan
        #expect(plan.contains { $0.contains("Z_PHOTO_POPULAR") }, "\(plan)")
    }
}
