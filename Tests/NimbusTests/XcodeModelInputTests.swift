import Foundation
import Nimbus
import Testing

@Suite("Models drawn in Xcode: bad input, older and newer files")
struct XcodeModelInputTests {
    struct BadContents: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// The `contents` lines from line 3 on.
        var body: String
        var line: Int
        var message: String
    }

    @Test("bad contents give invalidModel naming the file and the line", arguments: [
        BadContents(testDescription: "malformed XML", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
            </entitty>
            """, line: 4, message: "is not well-formed XML: an end tag does not match its start tag (line 4, column"),
        BadContents(testDescription: "unclosed element, which libxml2 recovers from", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
            """, line: 5, message: "is not well-formed XML"),
        BadContents(testDescription: "unknown attribute type", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="title" attributeType="Strng"/>
            </entity>
            """, line: 4, message: "attribute Post.title has unknown type \"Strng\"; expected one of Binary, Boolean, Date"),
        BadContents(testDescription: "default value of the wrong type", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <attribute name="rating" attributeType="Integer 16" defaultValueString="many"/>
            </entity>
            """, line: 5, message: "attribute Post.rating has default value \"many\", which is not a valid Integer 16"),
        BadContents(testDescription: "default value out of range", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="rating" attributeType="Integer 16" defaultValueString="40000"/>
            </entity>
            """, line: 4, message: "default value \"40000\", which is not a valid Integer 16"),
        BadContents(testDescription: "unknown delete rule", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <relationship name="next" optional="YES" maxCount="1" deletionRule="Explode" destinationEntity="Post"/>
            </entity>
            """, line: 4, message: "relationship Post.next has delete rule \"Explode\""),
        BadContents(testDescription: "attribute without a type", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="title" optional="YES"/>
            </entity>
            """, line: 4, message: "attribute Post.title has no type"),
        BadContents(testDescription: "minimum that is not a number", body: """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="score" attributeType="Double" minValueString="low"/>
            </entity>
            """, line: 4, message: "Post.score has minValueString=\"low\", which is not a number"),
    ])
    func badContents(_ bad: BadContents) throws {
        let folder = try XcodeModelFixtures.temporaryDirectory()
        defer { XcodeModelFixtures.remove(folder) }
        let version = try XcodeModelFixtures.writeVersion(XcodeModelFixtures.document(bad.body), in: folder)
        let error = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: version) }
        #expect(error.code == .invalidModel)
        let file = version.appendingPathComponent("contents").path
        #expect(error.message.hasPrefix("\(file):\(bad.line): "), "\(error.message)")
        #expect(error.message.contains(bad.message), "\(error.message)")
    }

    @Test("an inconsistent model gives invalidModel naming the file and every problem")
    func inconsistentModel() throws {
        let folder = try XcodeModelFixtures.temporaryDirectory()
        defer { XcodeModelFixtures.remove(folder) }
        let version = try XcodeModelFixtures.writeVersion(XcodeModelFixtures.document("""
            <entity name="Post" representedClassName="Post" parentEntity="Missing" syncable="YES">
                <relationship name="author" optional="YES" maxCount="1" destinationEntity="Person" inverseName="posts" inverseEntity="Person"/>
            </entity>
            <entity name="Person" representedClassName="Person" syncable="YES"/>
            """), in: folder)
        let error = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: version) }
        #expect(error.code == .invalidModel)
        #expect(error.message.hasPrefix(version.appendingPathComponent("contents").path + ": "))
        #expect(error.message.contains("entity Post has unknown parent Missing"), "\(error.message)")
    }

    @Test("a missing file gives an io error naming the path")
    func missingFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nowhere-\(UUID()).xcdatamodeld")
        let error = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: url) }
        #expect(error.code == .io)
        #expect(error.message.contains(url.path))
        let json = try #require(throws: NimbusError.self) {
            try ManagedObjectModel(contentsOf: url.deletingPathExtension().appendingPathExtension("json"))
        }
        #expect(json.code == .io)
    }

    @Test("bad packages: no versions, a current version that is not there, an unreadable marker, an Xcode 3 version, not a model")
    func badPackages() throws {
        let folder = try XcodeModelFixtures.temporaryDirectory()
        defer { XcodeModelFixtures.remove(folder) }
        let package = folder.appendingPathComponent("Posts.xcdatamodeld")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        let empty = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: package) }
        #expect(empty.code == .invalidModel)
        #expect(empty.message.contains("contains no .xcdatamodel version"))

        _ = try XcodeModelFixtures.writeVersion(XcodeModelFixtures.document(""), in: package, name: "Posts")
        let marker = package.appendingPathComponent(".xccurrentversion")
        try Data(XcodeModelFixtures.currentVersionPlist("Posts 3.xcdatamodel").utf8).write(to: marker)
        let missing = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: package) }
        #expect(missing.code == .invalidModel)
        #expect(missing.message.contains("names the current version Posts 3.xcdatamodel, which the package does not contain (versions: Posts.xcdatamodel)"))

        try Data("<plist><dict><key>".utf8).write(to: marker)
        let unreadable = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: package) }
        #expect(unreadable.code == .invalidModel)
        #expect(unreadable.message.contains(".xccurrentversion is not a readable property list"))

        let xcode3 = package.appendingPathComponent("Old.xcdatamodel")
        try FileManager.default.createDirectory(at: xcode3, withIntermediateDirectories: true)
        try Data([0, 1, 2]).write(to: xcode3.appendingPathComponent("elements"))
        let old = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: xcode3) }
        #expect(old.code == .invalidModel)
        #expect(old.message.contains("Old.xcdatamodel has no contents file"))

        let notModel = folder.appendingPathComponent("plist.xml")
        try Data(XcodeModelFixtures.currentVersionPlist("x").utf8).write(to: notModel)
        let wrongRoot = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: notModel) }
        #expect(wrongRoot.code == .invalidModel)
        #expect(wrongRoot.message.contains("the root element is <plist>"))

        let badJSON = folder.appendingPathComponent("model.json")
        try Data("{\"entities\": 3}".utf8).write(to: badJSON)
        let json = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: badJSON) }
        #expect(json.code == .invalidModel)
        #expect(json.message.contains("is not a model in Nimbus's JSON form"))
    }

    @Test("settings and elements a newer Xcode may write are reported, not dropped")
    func unknownSettings() throws {
        let model = try XcodeModelFixtures.load("""
            <entity name="Widget" representedClassName="Widget" syncable="YES" futureXcodeFlag="YES">
                <attribute name="label" optional="YES" attributeType="String" someUnknownKey="42"/>
                <attribute name="payload" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="blob" optional="YES" attributeType="Binary" defaultValueString="AAEC"/>
                <futureElement name="something"/>
            </entity>
            <configuration name="Synced" usedWithCloudKit="YES">
                <memberEntity name="Widget"/>
            </configuration>
            <userInfo>
                <entry key="owner" value="design"/>
            </userInfo>
            """, modelAttributes: " usedWithCloudKit=\"YES\"")
        #expect(model.unsupportedFeatures == [
            "Widget: <entity> setting futureXcodeFlag=\"YES\" is not understood; it was ignored",
            "Widget.label: <attribute> setting someUnknownKey=\"42\" is not understood; it was ignored",
            "Widget.scratch: transient attribute of Undefined type is not supported yet; the attribute was left out",
            "Widget.blob: a default value for a Binary attribute is not supported; it was ignored",
            "Widget: element <futureElement> something is not understood; it was left out",
            "configuration Synced: usedWithCloudKit is not used; choose what syncs on the CloudContainer",
            "model: user info (owner) has no place in a ManagedObjectModel (Core Data has none either); it was left out",
        ])
        let widget = try model.entity(named: "Widget")
        #expect(widget.attributesByName.keys.sorted() == ["blob", "label", "payload"])
        #expect(widget.attributesByName["blob"]?.defaultValue == nil)
        #expect(model.configurations == ["Synced": ["Widget"]])
    }

    @Test("older models: the Indexed checkbox and compound indexes become fetch indexes; expression indexes are reported")
    func olderIndexes() throws {
        let model = try XcodeModelFixtures.load("""
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="createdAt" optional="YES" attributeType="Date" indexed="YES" syncable="YES"/>
                <attribute name="title" optional="YES" attributeType="String" syncable="YES"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="title"/>
                        <index value="createdAt"/>
                    </compoundIndex>
                </compoundIndexes>
                <fetchIndex name="byTitleLength">
                    <fetchIndexElement expression="length:(title)" expressionType="Integer 64" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            """)
        #expect(try model.entity(named: "Note").fetchIndexes == [
            FetchIndexDescription(name: "byCreatedAtIndex", elements: [.init("createdAt")]),
            FetchIndexDescription(name: "compoundIndex1", elements: [.init("title"), .init("createdAt")]),
        ])
        #expect(model.unsupportedFeatures == [
            "Note.byTitleLength: fetch index with an element on the expression `length:(title)` is not supported yet; the index was left out",
        ])
    }

    @Test("R-tree fetch indexes, descending elements and Spotlight settings are read from Xcode models")
    func rTreeAndSpotlight() throws {
        let model = try XcodeModelFixtures.load("""
            <entity name="Photo" representedClassName="Photo" spotlightDisplayNameProperty="title" syncable="YES">
                <attribute name="latitude" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="longitude" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="takenAt" optional="YES" attributeType="Date"/>
                <attribute name="title" optional="YES" attributeType="String" spotlightIndexingEnabled="YES"/>
                <fetchIndex name="byLocation">
                    <fetchIndexElement property="latitude" type="RTree" order="ascending"/>
                    <fetchIndexElement property="longitude" type="RTree" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="recentFirst">
                    <fetchIndexElement property="takenAt" type="Binary" order="descending"/>
                </fetchIndex>
            </entity>
            """)
        let photo = try model.entity(named: "Photo")
        #expect(photo.fetchIndexes == [
            FetchIndexDescription(name: "byLocation", elements: [.init("latitude", collationType: .rTree), .init("longitude", collationType: .rTree)]),
            FetchIndexDescription(name: "recentFirst", elements: [.init("takenAt", ascending: false)]),
        ])
        #expect(photo.spotlightDisplayNameProperty == "title")
        #expect(photo.attributesByName["title"]?.isIndexedBySpotlight == true)
        #expect(model.unsupportedFeatures.isEmpty)
    }

    @Test("an R-tree index on an optional or non-numeric attribute in an Xcode model is an invalidModel error")
    func invalidRTree() throws {
        let folder = try XcodeModelFixtures.temporaryDirectory()
        defer { XcodeModelFixtures.remove(folder) }
        let version = try XcodeModelFixtures.writeVersion(XcodeModelFixtures.document("""
            <entity name="Photo" representedClassName="Photo" spotlightDisplayNameProperty="caption" syncable="YES">
                <attribute name="latitude" optional="YES" attributeType="Double"/>
                <attribute name="title" attributeType="String"/>
                <fetchIndex name="byLocation">
                    <fetchIndexElement property="latitude" type="RTree" order="ascending"/>
                </fetchIndex>
                <fetchIndex name="byTitle">
                    <fetchIndexElement property="title" type="RTree" order="ascending"/>
                </fetchIndex>
            </entity>
            """), in: folder)
        let error = try #require(throws: NimbusError.self) { try ManagedObjectModel(contentsOf: version) }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("fetch index Photo.byLocation: R-tree element latitude is optional"), "\(error.message)")
        #expect(error.message.contains("fetch index Photo.byTitle: R-tree element title is a string attribute"), "\(error.message)")
        #expect(error.message.contains("spotlightDisplayNameProperty caption, which is not one of its attributes"), "\(error.message)")
    }
}
