import Foundation
import Nimbus
import Testing

@Suite("Models drawn in Xcode")
struct XcodeModelTests {
    let model: ManagedObjectModel

    init() throws {
        model = try ManagedObjectModel(contentsOf: XcodeModelFixtures.package)
    }

    @Test("a .xcdatamodeld package opens the version its .xccurrentversion names")
    func currentVersion() {
        #expect(model.versionIdentifiers == ["2"])
        #expect(model.entities.map(\.name) == ["Attachment", "ImageAttachment", "Person", "Post", "Tag"])
        #expect(model.entities.map(\.entityNumber) == [1, 2, 3, 4, 5])
    }

    @Test(".xccurrentversion wins over version order")
    func currentVersionWins() throws {
        let folder = try XcodeModelFixtures.temporaryDirectory()
        defer { XcodeModelFixtures.remove(folder) }
        let package = folder.appendingPathComponent("Posts.xcdatamodeld")
        try FileManager.default.copyItem(at: XcodeModelFixtures.package, to: package)
        let marker = package.appendingPathComponent(".xccurrentversion")
        #expect(FileManager.default.fileExists(atPath: marker.path))
        try Data(XcodeModelFixtures.currentVersionPlist("Posts.xcdatamodel").utf8).write(to: marker)
        let older = try ManagedObjectModel(contentsOf: package)
        #expect(older.versionIdentifiers == ["1"])
        #expect(older.entities.map(\.name) == ["Person", "Post"])
    }

    @Test("a version folder and its contents file open directly")
    func versionFolder() throws {
        let folder = XcodeModelFixtures.package.appendingPathComponent("Posts.xcdatamodel")
        let fromFolder = try ManagedObjectModel(contentsOf: folder)
        let fromFile = try ManagedObjectModel(contentsOf: folder.appendingPathComponent("contents"))
        #expect(fromFolder.versionIdentifiers == ["1"])
        #expect(fromFolder.entities.map(\.name) == ["Person", "Post"])
        #expect(fromFile.versionHash == fromFolder.versionHash)
        #expect(fromFolder.versionHash != model.versionHash)
        #expect(fromFolder.unsupportedFeatures.isEmpty)
    }

    @Test("without .xccurrentversion, the last version in numeric order opens, or the only one")
    func lastVersion() throws {
        let folder = try XcodeModelFixtures.temporaryDirectory()
        defer { XcodeModelFixtures.remove(folder) }
        let package = folder.appendingPathComponent("Posts.xcdatamodeld")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let v1 = try String(contentsOf: XcodeModelFixtures.package.appendingPathComponent("Posts.xcdatamodel/contents"), encoding: .utf8)
        let v2 = try String(contentsOf: XcodeModelFixtures.package.appendingPathComponent("Posts 2.xcdatamodel/contents"), encoding: .utf8)
        _ = try XcodeModelFixtures.writeVersion(v1, in: package, name: "Posts")
        _ = try XcodeModelFixtures.writeVersion(v2, in: package, name: "Posts 2")
        let v10 = v1.replacingOccurrences(of: "userDefinedModelVersionIdentifier=\"1\"", with: "userDefinedModelVersionIdentifier=\"10\"")
        _ = try XcodeModelFixtures.writeVersion(v10, in: package, name: "Posts 10")
        #expect(try ManagedObjectModel(contentsOf: package).versionIdentifiers == ["10"])

        try FileManager.default.removeItem(at: package.appendingPathComponent("Posts 10.xcdatamodel"))
        try FileManager.default.removeItem(at: package.appendingPathComponent("Posts 2.xcdatamodel"))
        #expect(try ManagedObjectModel(contentsOf: package).versionIdentifiers == ["1"])
    }

    @Test("entities keep their class names, parent entities, abstractness and user info")
    func entities() throws {
        let attachment = try model.entity(named: "Attachment")
        let image = try model.entity(named: "ImageAttachment")
        #expect(attachment.isAbstract)
        #expect(!image.isAbstract)
        #expect(attachment.managedObjectClassName == "Attachment")
        #expect(image.managedObjectClassName == "ImageAttachment")
        #expect(image.superentityName == "Attachment")
        #expect(image.superentity === attachment)
        #expect(attachment.subentities.map(\.name) == ["ImageAttachment"])
        #expect(image.rootEntityNumber == attachment.entityNumber)
        #expect(image.attributesByName.keys.sorted() == ["createdAt", "fileName", "height", "imageData", "width"])
        #expect(image.relationshipsByName.keys.sorted() == ["post"])
        #expect(try model.entity(named: "Person").userInfo == ["displayName": "Author"])
        #expect(try model.entity(named: "Post").userInfo.isEmpty)
    }

    struct AttributeCase: Sendable, CustomTestStringConvertible {
        var entity: String
        var name: String
        var type: AttributeType
        var isOptional: Bool
        var defaultValue: PropertyValue?
        var testDescription: String { "\(entity).\(name)" }

        init(_ entity: String, _ name: String, _ type: AttributeType, optional: Bool, _ defaultValue: PropertyValue? = nil) {
            self.entity = entity
            self.name = name
            self.type = type
            self.isOptional = optional
            self.defaultValue = defaultValue
        }
    }

    static let createdAt = PropertyValue.date(Date(timeIntervalSinceReferenceDate: 694_224_000))

    @Test("attributes keep their type, optionality and default value", arguments: [
        AttributeCase("Attachment", "createdAt", .date, optional: false, createdAt),
        AttributeCase("Attachment", "fileName", .string, optional: true),
        AttributeCase("ImageAttachment", "height", .integer32, optional: false, .integer(1)),
        AttributeCase("ImageAttachment", "imageData", .binaryData, optional: true),
        AttributeCase("Person", "birthday", .date, optional: true),
        AttributeCase("Person", "email", .string, optional: true),
        AttributeCase("Person", "name", .string, optional: false, .string("Anonymous")),
        AttributeCase("Post", "body", .string, optional: true),
        AttributeCase("Post", "cachedScore", .double, optional: true, .double(0)),
        AttributeCase("Post", "createdAt", .date, optional: false, createdAt),
        AttributeCase("Post", "identifier", .uuid, optional: false, .uuid(UUID(uuidString: "7C9E6679-7425-40DE-944B-E07FC1F90AE7")!)),
        AttributeCase("Post", "isDraft", .boolean, optional: false, .bool(true)),
        AttributeCase("Post", "link", .uri, optional: true, .url(URL(string: "https://example.com/posts")!)),
        AttributeCase("Post", "metadata", .transformable, optional: true),
        AttributeCase("Post", "price", .decimal, optional: true, .decimal(Decimal(string: "9.99")!)),
        AttributeCase("Post", "rating", .integer16, optional: false, .integer(0)),
        AttributeCase("Post", "score", .double, optional: false, .double(1.5)),
        AttributeCase("Post", "title", .string, optional: false, .string("Untitled")),
        AttributeCase("Post", "views", .integer32, optional: false, .integer(0)),
        AttributeCase("Post", "viewsTotal", .integer64, optional: false, .integer(0)),
        AttributeCase("Post", "weight", .float, optional: true, .double(0.5)),
        AttributeCase("Post", "wordCount", .integer64, optional: true),
        AttributeCase("Tag", "name", .string, optional: false),
    ])
    func attribute(_ expected: AttributeCase) throws {
        let attribute = try #require(try model.entity(named: expected.entity).attributesByName[expected.name])
        #expect(attribute.type == expected.type)
        #expect(attribute.isOptional == expected.isOptional)
        #expect(attribute.defaultValue == expected.defaultValue)
    }

    @Test("validation limits: values for numbers and dates, lengths for strings, patterns")
    func validation() throws {
        let post = try model.entity(named: "Post").attributesByName
        #expect(post["rating"]?.minValue == 0)
        #expect(post["rating"]?.maxValue == 5)
        #expect(post["price"]?.minValue == 0)
        #expect(post["price"]?.maxValue == nil)
        #expect(post["title"]?.maxLength == 200)
        #expect(post["title"]?.minLength == nil)
        #expect(post["title"]?.maxValue == nil)
        let person = try model.entity(named: "Person").attributesByName
        #expect(person["name"]?.minLength == 1)
        #expect(person["name"]?.maxLength == 80)
        #expect(person["birthday"]?.minValue == -3_155_673_600)
        #expect(person["birthday"]?.maxValue == 1_262_304_000)
        #expect(person["email"]?.regularExpression == "[^@ ]+@[^@ ]+")
        let tag = try model.entity(named: "Tag").attributesByName
        #expect(tag["name"]?.minLength == 1)
        #expect(tag["name"]?.maxLength == 40)
        #expect(tag["name"]?.regularExpression == "[a-z0-9-]+")
        let image = try model.entity(named: "ImageAttachment").attributesByName
        #expect(image["width"]?.minValue == 1)
        #expect(image["width"]?.maxValue == nil)
    }

    @Test("attribute settings: transient, external storage, history, transformer, renaming ID, hash modifier, user info")
    func attributeSettings() throws {
        let post = try model.entity(named: "Post").attributesByName
        #expect(post["cachedScore"]?.isTransient == true)
        #expect(post["score"]?.isTransient == false)
        #expect(post["title"]?.preservesValueInHistoryOnDeletion == true)
        #expect(post["body"]?.preservesValueInHistoryOnDeletion == false)
        #expect(post["title"]?.userInfo == ["searchable": "YES"])
        #expect(post["metadata"]?.valueTransformerName == "PostMetadataTransformer")
        #expect(post["body"]?.renamingIdentifier == "text")
        #expect(post["title"]?.renamingIdentifier == nil)
        #expect(post["views"]?.versionHashModifier == "counted")
        let image = try model.entity(named: "ImageAttachment").attributesByName
        #expect(image["imageData"]?.allowsExternalBinaryDataStorage == true)
        #expect(post["metadata"]?.allowsExternalBinaryDataStorage == false)
    }
}
