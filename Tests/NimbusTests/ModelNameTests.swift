import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

/// Model names become SQL identifiers and parts of object URIs: names that could inject SQL
/// or break a URI, and names that collide once upper-cased, are refused when the model loads
/// (see docs/decisions/0013-identifier-quoting.md).
@Suite("Model names")
struct ModelNameTests {
    private func problems(_ build: () throws -> ManagedObjectModel) -> String? {
        do {
            _ = try build()
            return nil
        } catch let error as NimbusError {
            return error.code == .invalidModel ? error.message : "wrong code \(error.code): \(error.message)"
        } catch {
            return "not a NimbusError: \(error)"
        }
    }

    @Test("entity and attribute names with quotes, semicolons and -- are refused, every one listed",
          arguments: [
            #"Post"; DROP TABLE ZPOST; --"#, "Post'", "Po st", "Post--", "Pöst", "_Post", "1Post", "Post/Tag", "Post%20",
          ])
    func injectedNames(_ name: String) throws {
        let message = try #require(problems {
            try ManagedObjectModel {
                EntityDescription(name) {
                    AttributeDescription("title", .string)
                }
                EntityDescription("Tag") {
                    AttributeDescription(name.lowercased(), .string)
                    AttributeDescription("ok", .string)
                }
            }
        })
        #expect(message.contains("entity name"), "\(message)")
        #expect(message.contains("property name"), "\(message)")
        #expect(!message.contains("\"ok\""), "\(message)")
    }

    @Test("names that upper-case to one table or one column are refused, every clash listed")
    func clashes() throws {
        let message = try #require(problems {
            try ManagedObjectModel {
                EntityDescription("Post") {
                    AttributeDescription("title", .string)
                    AttributeDescription("Title", .string)
                }
                EntityDescription("POST") {
                    AttributeDescription("views", .integer64)
                }
                EntityDescription("Image", parent: "POST") {
                    AttributeDescription("VIEWS", .string)
                }
            }
        })
        #expect(message.contains("ZPOST"), "\(message)")
        #expect(message.contains("ZTITLE"), "\(message)")
        #expect(message.contains("ZVIEWS"), "\(message)")
    }

    @Test("a model cache in a crafted store with injected names is refused when the store opens, and runs no SQL")
    func craftedModelCache() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "kept"])
            try context.save()
        }
        try stack.coordinator.removePersistentStore(stack.store)
        try Self.craftModelCache(at: stack.url)
        #expect { try ManagedObjectModel.storedModel(at: stack.url) } throws: {
            ($0 as? NimbusError)?.code == .invalidModel && ($0 as? NimbusError)?.message.contains("DELETE FROM ZPOST") == true
        }
        let queue = try DatabaseQueue(path: stack.url.path)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZPOST") } == 1)
        #expect(try queue.read { db in try db.tableExists("ZPOST") })
    }

    /// Rewrites the store's model cache so entity Post is named `Post" ; DELETE FROM ZPOST; --`.
    static func craftModelCache(at url: URL) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            let data = try #require(try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE"))
            var text = try #require(String(data: data, encoding: .utf8))
            text = text.replacingOccurrences(of: "\"Post\"", with: #""Post\" ; DELETE FROM ZPOST; --""#)
            try db.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [Data(text.utf8)])
        }
        try queue.close()
    }

    @Test("every identifier a save and a fetch write into SQL is quoted")
    func quotedIdentifiers() throws {
        let stack = try TestStack(recordSQL: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let ada = try context.insert("Person", ["name": "Ada"])
            let post = try context.insert("Post", ["title": "t", "author": ada])
            try context.save()
            post.setValue("u", forKey: "title")
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.predicate = try QueryPredicate(format: "author.name == 'Ada'")
            #expect(try context.fetch(request).count == 1)
        }
        let sql = stack.store.recordedSQL ?? []
        #expect(sql.contains { $0.hasPrefix(#"INSERT INTO "ZPOST" ("Z_PK", "Z_ENT", "Z_OPT", "ZATTACHMENTS"#) || $0.hasPrefix(#"INSERT INTO "ZPOST" ("Z_PK", "Z_ENT", "Z_OPT", "ZAUTHOR""#) }, "\(sql)")
        #expect(sql.contains { $0.hasPrefix(#"UPDATE "ZPOST" SET Z_OPT = Z_OPT + 1, "ZTITLE" = ?"#) }, "\(sql)")
        #expect(sql.contains { $0.contains(#"FROM "ZPOST" t0 LEFT JOIN "ZPERSON" t1 ON t1.Z_PK = t0."ZAUTHOR" WHERE"#) }, "\(sql)")
        // No statement names a model table or column bare.
        for statement in sql where statement.contains("ZPOST") || statement.contains("ZTITLE") {
            #expect(!statement.contains(" ZPOST") && !statement.contains(".ZTITLE") && !statement.contains(" ZTITLE"), "\(statement)")
        }
    }

    @Test("object URIs never trap: a store identifier with characters a URI cannot carry is percent-encoded")
    func uriOfOddStoreIdentifier() throws {
        let model = try PostsModel.make()
        let entity = try model.entity(named: "Post")
        let id = ManagedObjectID(entity: entity, storeIdentifier: "a store/with spaces#", primaryKey: 3)
        let uri = id.uriRepresentation()
        #expect(uri.absoluteString.hasPrefix("x-coredata://"))
        #expect(uri.absoluteString.hasSuffix("/Post/p3"))
    }
}
