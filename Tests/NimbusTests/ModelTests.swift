import Foundation
import Testing
@testable import Nimbus

@Suite("Model")
struct ModelTests {
    @Test("entities get numbers alphabetically, each hierarchy depth-first")
    func entityNumbers() throws {
        let model = try PostsModel.make()
        let numbers = model.entities.map { "\($0.entityNumber):\($0.name)" }
        #expect(numbers == ["1:Attachment", "2:FileAttachment", "3:ImageAttachment", "4:Person", "5:Post", "6:Tag"])
        let image = try model.entity(named: "ImageAttachment")
        #expect(image.superentity?.name == "Attachment")
        #expect(image.propertiesByName.keys.sorted() == ["fileName", "height", "post", "width"])
        #expect(try model.entity(named: "Attachment").subentities.map(\.name) == ["FileAttachment", "ImageAttachment"])
        #expect(image.isKind(of: try model.entity(named: "Attachment")))
    }

    @Test("an inconsistent model lists every problem")
    func invalidModel() {
        #expect {
            _ = try ManagedObjectModel {
                EntityDescription("A") {
                    RelationshipDescription("b", to: "Missing")
                    RelationshipDescription("c", to: "C", inverse: "nope")
                }
                EntityDescription("C", parent: "Ghost") {}
            }
        } throws: { error in
            guard let error = error as? NimbusError, error.code == .invalidModel else { return false }
            return error.message.contains("unknown parent Ghost")
        }
        #expect {
            _ = try ManagedObjectModel {
                EntityDescription("A") {
                    RelationshipDescription("b", to: "Missing")
                    RelationshipDescription("c", to: "A", inverse: "nope")
                }
            }
        } throws: { error in
            guard let error = error as? NimbusError, error.code == .invalidModel else { return false }
            return error.message.contains("unknown entity Missing") && error.message.contains("names inverse nope")
        }
    }

    @Test("version hashes change with the schema, not with defaults")
    func versionHashes() throws {
        func model(type: AttributeType, defaultValue: Any?) throws -> ManagedObjectModel {
            try ManagedObjectModel { EntityDescription("A") { AttributeDescription("x", type, defaultValue: defaultValue) } }
        }
        let a = try model(type: .integer64, defaultValue: 1)
        let b = try model(type: .integer64, defaultValue: 2)
        let c = try model(type: .string, defaultValue: nil)
        #expect(a.versionHash == b.versionHash)
        #expect(a.versionHash != c.versionHash)
        #expect(a.entityVersionHashesByName["A"]?.count == 32)
    }

    @Test("a model round-trips through JSON")
    func jsonRoundTrip() throws {
        let model = try PostsModel.make()
        let data = try JSONEncoder().encode(model)
        let decoded = try JSONDecoder().decode(ManagedObjectModel.self, from: data)
        #expect(decoded.versionHash == model.versionHash)
        #expect(decoded.entities.map(\.name) == model.entities.map(\.name))
        let views = try decoded.entity(named: "Post").attributesByName["views"]
        #expect(views?.defaultValue == .integer(0))
        #expect(try decoded.entity(named: "Person").attributesByName["email"]?.regularExpression == "[^@]+@[^@]+")
    }

    @Test("a hand-written JSON model needs only names and types")
    func minimalJSON() throws {
        let json = #"{"entities":[{"name":"Note","attributes":[{"name":"text","type":"string"}]}]}"#
        let model = try JSONDecoder().decode(ManagedObjectModel.self, from: Data(json.utf8))
        let text = try model.entity(named: "Note").attributesByName["text"]
        #expect(text?.isOptional == true)
        #expect(text?.type == .string)
    }

    @Test("the store schema follows Core Data's naming")
    func schemaNames() throws {
        let schema = try PostsModel.make().schema
        #expect(schema.tables.map(\.name).sorted() == ["ZATTACHMENT", "ZPERSON", "ZPOST", "ZTAG"])
        let attachment = schema.tables.first { $0.name == "ZATTACHMENT" }!
        #expect(attachment.columns.map(\.name).contains("ZWIDTH"))
        #expect(attachment.columns.map(\.name).contains("Z_FOK_POST"))
        #expect(schema.joinTables.map(\.name) == ["Z_5TAGS"])
        #expect(schema.joinTables[0].firstColumn == "Z_5POSTS")
        #expect(schema.joinTables[0].secondColumn == "Z_6TAGS")
    }
}
