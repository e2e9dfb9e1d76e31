import Foundation
import Testing
@testable import Nimbus

/// Predicates over entity hierarchies: sub-entities share their root's table, so to-many
/// subqueries filter on `Z_ENT` and inherited attributes resolve to the shared column.
@Suite("Predicates over entity hierarchies")
struct PredicateInheritanceTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Item", attributes: [AttributeDescription("title", .string), AttributeDescription("price", .double)],
                              relationships: [RelationshipDescription("shelf", to: "Shelf", inverse: "items")]),
            EntityDescription("Book", parent: "Item", attributes: [AttributeDescription("pages", .integer32)],
                              relationships: [RelationshipDescription("favoriteOf", to: "Shelf", inverse: "favorites")]),
            EntityDescription("Toy", parent: "Item", attributes: [AttributeDescription("age", .integer16)]),
            EntityDescription("Shelf", attributes: [AttributeDescription("label", .string)], relationships: [
                RelationshipDescription("items", to: "Item", inverse: "shelf", toMany: true),
                RelationshipDescription("favorites", to: "Book", inverse: "favoriteOf", toMany: true),
            ]),
        ])
    }

    @Test("SQL and memory agree on hierarchies", arguments: [
        "ANY items.title BEGINSWITH 'b'", "items.@count > 2", "favorites.@count == 0", "ALL favorites.pages > 100",
        "ANY favorites.price < 5", "items.@sum.price > 10", "SUBQUERY(favorites, $b, $b.pages > 50 AND $b.shelf == SELF).@count > 0",
        "NONE items.price > 8", "label ==[c] 'A' OR ANY favorites.title CONTAINS[cd] 'E'",
    ])
    @MainActor
    func agree(_ format: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-inheritance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let container = PersistentContainer(name: "Shelves", managedObjectModel: try Self.model())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: directory.appendingPathComponent("s.sqlite"))]
        try container.loadPersistentStores()
        let context = container.viewContext
        var rng = SeededGenerator(seed: 3)
        var shelves: [ManagedObject] = []
        for s in 0..<12 {
            let shelf = try context.insertNewObject(forEntityName: "Shelf")
            shelf.setValue(["a", "A", "b", nil][s % 4], forKey: "label")
            var favorites: [ManagedObject] = []
            for i in 0..<Int(rng.next() % 5) {
                let item = try context.insertNewObject(forEntityName: i % 2 == 0 ? "Book" : "Toy")
                item.setValue(["book", "toy", "Élan", "bé", nil][Int(rng.next() % 5)], forKey: "title")
                item.setValue(Double(rng.next() % 20) / 2, forKey: "price")
                item.setValue(shelf, forKey: "shelf")
                if item.entity.name == "Book" {
                    item.setValue(Int(rng.next() % 300), forKey: "pages")
                    if rng.next() % 2 == 0 { favorites.append(item) }
                }
            }
            try shelf.setValidatedValue(favorites, forKey: "favorites")
            shelves.append(shelf)
        }
        try context.save()
        let predicate = try QueryPredicate(format: format)
        var request = FetchRequest<ManagedObject>(entityName: "Shelf")
        request.predicate = predicate
        let fetched = Set(try context.fetch(request).map(\.objectID))
        let expected = Set(try shelves.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
        #expect(fetched == expected)
        #expect(!expected.isEmpty || format.contains("ALL") || format.contains("== 0"))
    }

    @Test("sub-entity fetches compile inherited attributes to the shared column")
    func inheritedAttributes() throws {
        let model = try Self.model()
        var compiler = PredicateSQLCompiler(entity: try model.entity(named: "Book"), schema: model.schema)
        let sql = try compiler.condition(QueryPredicate(format: "title == 'x' AND pages > 3 AND shelf.label == 'a'"))
        #expect(sql == "((t0.\"ZTITLE\" IS ?) AND (t0.\"ZPAGES\" > ?) AND (t1.\"ZLABEL\" IS ?))")
        #expect(compiler.joins == ["LEFT JOIN \"ZSHELF\" t1 ON t1.Z_PK = t0.\"ZSHELF\""])
        var shelf = PredicateSQLCompiler(entity: try model.entity(named: "Shelf"), schema: model.schema)
        let favorites = try shelf.condition(QueryPredicate(format: "favorites.@count > 0"))
        #expect(favorites.contains("Z_ENT IN ("))
    }
}
