import Foundation
import GRDB
import NimbusData
import Testing

@Suite("Same file as @Managed")
struct SchemaEquivalenceTests {
    /// Tables, columns, indexes and entity numbers of a store file.
    func schema(of url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        return try queue.read { db in
            let objects = try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
                .map { "\($0["type"] as String): \($0["name"] as String): \(($0["sql"] as String?) ?? "")" }
            let entities = try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                .map { "entity \($0["Z_ENT"] as Int64) \($0["Z_NAME"] as String) super \($0["Z_SUPER"] as Int64)" }
            return objects + entities
        }
    }

    @Test("a SwiftData-style model and its @Managed twin write the same tables, columns and indexes")
    func sameStoreSchema() throws {
        let dataURL = temporaryStoreURL("Data.store")
        do {
            let container = try ModelContainer(for: Book.self, Chapter.self, Shelf.self,
                                               configurations: ModelConfiguration(url: dataURL, cloudKitDatabase: .none))
            let context = ModelContext(container)
            context.insert(Book(isbn: "1", title: "One"))
            try context.save()
        }
        let managedURL = temporaryStoreURL("Managed.store")
        try createManagedLibraryStore(at: managedURL)
        let data = try schema(of: dataURL)
        let managed = try schema(of: managedURL)
        #expect(data.contains { $0.hasPrefix("table: ZBOOK:") })
        #expect(data == managed)
    }
}
