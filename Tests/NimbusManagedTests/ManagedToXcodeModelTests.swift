import Foundation
import Nimbus
import NimbusTesting
import Testing

/// A store written from `@Managed` classes opens, and migrates, against the same model drawn
/// in Xcode, as a porting developer's app does once it ships its `.xcdatamodeld`.
@Suite("@Managed stores against the equivalent Xcode model")
struct ManagedToXcodeModelTests {
    static func xcodeModel(_ contents: String, in folder: TemporaryDirectory, named name: String) throws -> ManagedObjectModel {
        let url = folder.url.appendingPathComponent("\(name).xcdatamodel")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url.appendingPathComponent("contents"))
        return try ManagedObjectModel(contentsOf: url)
    }

    @Test("the recipes classes and their Xcode model are one model: the store opens with either")
    func recipes() throws {
        let folder = try TemporaryDirectory()
        let classes = try ManagedObjectModel(Recipe.self, Ingredient.self, Category.self)
        let xcode = try Self.xcodeModel(Self.recipesXML, in: folder, named: "Recipes")
        #expect(xcode.entityVersionHashesByName == classes.entityVersionHashesByName)
        let url = folder.file("Recipes.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: classes)
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let recipe = Recipe(context: context)
            recipe.name = "Cake"
            recipe.prepMinutes = 40
            try context.save()
        }
        try coordinator.removePersistentStore(store)
        // What `nimbus store migrate --model Recipes.xcdatamodel` runs: nothing to do.
        let plan = try StagedMigrationPlan([.lightweight(from: try ManagedObjectModel.storedModel(at: url), to: xcode)])
        #expect(try plan.stages(forStoreAt: url).isEmpty)
        let reopened = PersistentStoreCoordinator(managedObjectModel: xcode)
        try reopened.addPersistentStore(with: PersistentStoreDescription(url: url))
        let check = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: reopened)
        try check.performAndWait {
            let recipe = try #require(try check.fetch(FetchRequest<ManagedObject>(entityName: "Recipe")).first)
            #expect(recipe.value(forKey: "prepMinutes") as? Int32 == 40)
        }
    }

    @Test("Codable attributes, which Xcode declares as optional transformables, migrate with their values")
    func transformables() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Sketches.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(Sketch.self))
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let sketch = Sketch(context: context)
            sketch.title = "Dune"
            sketch.tags = ["sand", "sea"]
            try context.save()
        }
        try coordinator.removePersistentStore(store)
        let xcode = try Self.xcodeModel(Self.sketchXML, in: folder, named: "Sketch")
        let plan = try StagedMigrationPlan([.lightweight(from: try ManagedObjectModel.storedModel(at: url), to: xcode)])
        #expect(try plan.migrateStore(at: url).count == 1)
        // The classes still read the store the Xcode model migrated.
        let reopened = PersistentStoreCoordinator(managedObjectModel: try xcode.withClasses([Sketch.self]))
        try reopened.addPersistentStore(with: PersistentStoreDescription(url: url))
        let check = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: reopened)
        try check.performAndWait {
            let sketch = try #require(try check.fetch(FetchRequest<Sketch>(entityName: "Sketch")).first)
            #expect(sketch.title == "Dune")
            #expect(sketch.tags == ["sand", "sea"])
        }
    }

    static let recipesXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23D56" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Category" representedClassName="Category" syncable="YES">
            <attribute name="name" attributeType="String" defaultValueString=""/>
            <relationship name="recipes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Recipe" inverseName="category" inverseEntity="Recipe"/>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="name"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Ingredient" representedClassName="Ingredient" syncable="YES">
            <attribute name="displayOrder" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="recipe" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Recipe" inverseName="ingredients" inverseEntity="Recipe"/>
        </entity>
        <entity name="Recipe" representedClassName="Recipe" syncable="YES">
            <attribute name="course" optional="YES" attributeType="String"/>
            <attribute name="difficulty" attributeType="Integer 16" defaultValueString="1" usesScalarValueType="YES"/>
            <attribute name="name" attributeType="String" defaultValueString=""/>
            <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="prepMinutes" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="price" optional="YES" attributeType="Decimal"/>
            <attribute name="rating" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="source" optional="YES" attributeType="URI"/>
            <relationship name="category" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Category" inverseName="recipes" inverseEntity="Category"/>
            <relationship name="ingredients" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Ingredient" inverseName="recipe" inverseEntity="Ingredient"/>
            <fetchIndex name="byNameIndex">
                <fetchIndexElement property="name" type="Binary" order="ascending"/>
            </fetchIndex>
        </entity>
    </model>
    """

    static let sketchXML = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22522" systemVersion="23D56" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Sketch" representedClassName="Sketch" syncable="YES">
            <attribute name="palette" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer" customClassName="Palette"/>
            <attribute name="scores" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer" customClassName="[String: Int]"/>
            <attribute name="strokes" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer" customClassName="[Stroke]"/>
            <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer" customClassName="[String]"/>
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="visitors" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer" customClassName="Set&lt;UUID&gt;"/>
        </entity>
    </model>
    """
}
