import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// What real apps' models and code rely on, which Core Data accepts.
@Suite("Real apps' models open unchanged")
struct RealAppModelTests {
    @Test("Xcode's lenient defaults: NO on an integer is 0, 0.0 on a Boolean is false; unreadable text still fails")
    func lenientDefaults() throws {
        let model = try NotebookFixtures.version(1)
        let folder = try #require(model.entitiesByName["Folder"])
        let note = try #require(model.entitiesByName["Note"])
        #expect(folder.attributesByName["sortOrder"]?.defaultValue == .integer(0))
        #expect(note.attributesByName["pinned"]?.defaultValue == .bool(false))
        let more = try XcodeModelFixtures.load("""
            <entity name="Flags" representedClassName="Flags" syncable="YES">
                <attribute name="a" attributeType="Integer 16" defaultValueString="YES"/>
                <attribute name="b" attributeType="Boolean" defaultValueString="1.0"/>
                <attribute name="c" attributeType="Double" defaultValueString="NO"/>
            </entity>
            """)
        let flags = try #require(more.entitiesByName["Flags"])
        #expect(flags.attributesByName["a"]?.defaultValue == .integer(1))
        #expect(flags.attributesByName["b"]?.defaultValue == .bool(true))
        #expect(flags.attributesByName["c"]?.defaultValue == .double(0))
        let error = try #require(throws: NimbusError.self) {
            try XcodeModelFixtures.load("""
                <entity name="Flags" representedClassName="Flags" syncable="YES">
                    <attribute name="b" attributeType="Boolean" defaultValueString="maybe"/>
                </entity>
                """)
        }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("Flags.b has default value \"maybe\""), "\(error.message)")
    }

    @Test("a fetch index element on a to-many relationship is reported and left out; transformables without a usable transformer are reported")
    func notes() throws {
        let model = try NotebookFixtures.version(1)
        #expect(model.unsupportedFeatures.contains { $0.contains("Note.byFolderAndTags: fetch index element on to-many relationship tags") && $0.contains("built on folder only") },
                "\(model.unsupportedFeatures)")
        #expect(model.entitiesByName["Note"]?.fetchIndexes.map { $0.elements.map(\.property) } == [["folder"]])
        let transformables = try XcodeModelFixtures.load("""
            <entity name="Doc" representedClassName="Doc" syncable="YES">
                <attribute name="plain" optional="YES" attributeType="Transformable"/>
                <attribute name="colors" optional="YES" attributeType="Transformable" valueTransformerName="ColorListTransformer"/>
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Doc"/>
                <fetchIndex name="byPages">
                    <fetchIndexElement property="pages" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            """)
        let notes = transformables.unsupportedFeatures
        #expect(!notes.contains { $0.hasPrefix("Doc.plain:") }, "a transformable without a transformer reads keyed archives: \(notes)")
        #expect(notes.contains { $0.hasPrefix("Doc.colors: value transformer ColorListTransformer is the app's own") }, "\(notes)")
        #expect(notes.contains { $0.hasPrefix("Doc.byPages: fetch index element on to-many relationship pages") && $0.hasSuffix("the index was left out") }, "\(notes)")
        #expect(transformables.entitiesByName["Doc"]?.fetchIndexes.isEmpty == true)
    }

    @Test("an empty required to-many saves, as in Core Data; minimum counts still hold and the error names the failing object")
    func emptyRequiredToMany() throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(1))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Notes.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            _ = try context.insert("Folder", ["name": "Empty", "createdAt": Date()])
            try context.save()
            #expect(try context.all("Folder").count == 1)
            // A note is saved; its (new) folder lacks a required name: the error names the folder.
            let broken = try context.insert("Folder", ["createdAt": Date()])
            broken.setValue(nil, forKey: "name")
            _ = try context.insert("Note", ["title": "Hello", "folder": broken])
            let error = try #require(throws: NimbusError.self) { try context.save() }
            #expect(error.code == .validationFailed)
            #expect(error.validationFailures.map(\.description) == ["Folder.name: is required (object \(broken.objectID))"])
            #expect(error.message.contains("x-coredata:///Folder/t"), "\(error.message)")
        }
        let counted = try ManagedObjectModel {
            EntityDescription("List") { RelationshipDescription("items", to: "Item", inverse: "list", toMany: true, isOptional: false, minCount: 1) }
            EntityDescription("Item") { RelationshipDescription("list", to: "List", inverse: "items") }
        }
        let other = PersistentStoreCoordinator(managedObjectModel: counted)
        try other.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Lists.sqlite")))
        let lists = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: other)
        try lists.performAndWait { () throws in
            _ = try lists.insert("List", [:])
            let error = try #require(throws: NimbusError.self) { try lists.save() }
            #expect(error.validationFailures.first?.reason == "has 0 objects, fewer than the minimum 1")
        }
    }

    @Test("uniqueness constraints survive a lightweight migration: a duplicate is a constraintConflict naming entity and property")
    func uniquenessAfterMigration() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Notes.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(1))
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                _ = try context.insert("Tag", ["name": "work"])
                try context.save()
            }
        }
        for reopen in 0..<2 {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(2))
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                _ = try context.insert("Tag", ["name": "work"])
                let error = try #require(throws: NimbusError.self, "reopen \(reopen)") { try context.save() }
                #expect(error.code == .constraintConflict)
                #expect(error.message.contains("another Tag already has the same name"), "\(error.message)")
                context.rollback()
                #expect(try context.all("Tag").count == 1)
            }
        }
    }
}
