import Foundation
import GRDB
import Synchronization
import Testing
@testable import Nimbus
import NimbusTesting

/// Reading Xcode's `.xcmappingmodel` and running mapping models.
@Suite("Mapping models")
struct MappingModelTests {
    @Test("an Xcode mapping model reads with its kinds, filter, policy, versions and archived value expressions")
    func reads() throws {
        let mapping = try MappingModel(contentsOf: NotebookFixtures.mapping2to3)
        #expect(mapping.sourceModelVersion == "Notebook 2" && mapping.destinationModelVersion == "Notebook 3")
        #expect(mapping.entityMappings.map(\.name) == ["FolderToNotebook", "NoteToNote", "Tag"])
        #expect(mapping.entityMappings.map(\.kind) == [.transform, .transform, .remove])
        let note = mapping.entityMappings[1]
        #expect(note.sourcePredicate == "title != \"scratch\"")
        #expect(note.migrationPolicyName == "NotebookApp.NoteMigrationPolicy")
        let expressions = Dictionary(uniqueKeysWithValues: (note.attributeMappings + note.relationshipMappings).map { ($0.name, $0.valueExpression?.description ?? "-") })
        #expect(expressions == [
            "pinned": "$source.pinned",
            "priority": "FUNCTION($entityPolicy, \"priorityForPinned:starred:\", $source.pinned, $source.starred)",
            "schemaVersion": "3",
            "text": "$source.text",
            "thumbnail": "$source.thumbnail",
            "title": "FUNCTION($source.title, \"capitalizedString\")",
            "wordCount": "$source.wordCount",
            "notebook": "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"FolderToNotebook\", $source.folder)",
        ])
        #expect(note.attributeMappings.filter(\.isAutomatic).map(\.name) == ["pinned", "text", "thumbnail"])
        #expect(mapping.entityMappings[0].attributeMappings.map { $0.valueExpression?.description } == ["$source.createdAt", "$source.name"])
    }

    @Test("value expressions parse from text: key paths, FUNCTION with any selector, constants, arithmetic", arguments: [
        ("$source.title", "$source.title"),
        ("FUNCTION($source.title, 'uppercaseString')", "FUNCTION($source.title, \"uppercaseString\")"),
        ("FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"AToB\", $source.items)",
         "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"AToB\", $source.items)"),
        ("42", "42"), ("'text'", "\"text\""), ("$source.price * 100", "($source.price * 100)"),
    ])
    func parsesText(_ text: String, _ expected: String) throws {
        #expect(try MappingExpression(format: text).description == expected)
    }

    @Test("expressions evaluate on objects: string methods, arithmetic, NSExpression functions; an unknown method names a custom policy")
    func evaluates() throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(2))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Notes.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let manager = MigrationManager(sourceModel: try NotebookFixtures.version(2), destinationModel: try NotebookFixtures.version(3))
        let mapping = EntityMapping(kind: .transform, source: "Note", destination: "Note")
        try context.performAndWait { () throws in
            let note = try context.insert("Note", ["title": "hello world", "wordCount": 21, "text": "a,b"])
            func value(_ text: String) throws -> Any? {
                try manager.evaluate(try MappingExpression(format: text), source: note, destination: nil, mapping: mapping)
            }
            #expect(try value("FUNCTION($source.title, 'capitalizedString')") as? String == "Hello World")
            #expect(try value("FUNCTION($source.title, 'stringByAppendingString:', '!')") as? String == "hello world!")
            #expect(try value("FUNCTION($source.text, 'componentsSeparatedByString:', ',')") as? [String] == ["a", "b"])
            #expect(try value("$source.wordCount * 2 + 1") as? Int64 == 43)
            #expect(try value("uppercase:($source.title)") as? String == "HELLO WORLD")
            #expect(try value("$source.title.length") as? Int64 == 11)
            #expect(try value("$source.folder") == nil)
            let error = try #require(throws: NimbusError.self) { try value("FUNCTION($source.title, 'reverseWords')") }
            #expect(error.code == .migrationFailed && error.message.contains("custom migration policy"), "\(error.message)")
            #expect(throws: NimbusError.self) { try value("$source.nosuchkey") }
        }
    }

    @Test("bad mapping models are invalidModel or io errors naming the file; bad text is invalidPredicate")
    func badInput() throws {
        let folder = try TemporaryDirectory()
        #expect { try MappingModel(contentsOf: folder.file("Missing.xcmappingmodel")) } throws: { ($0 as? NimbusError)?.code == .io }
        let dataModel = NotebookFixtures.package.appendingPathComponent("Notebook.xcdatamodel/contents")
        let notMapping = try #require(throws: NimbusError.self) { try MappingModel(contentsOf: dataModel) }
        #expect(notMapping.code == .invalidModel && notMapping.message.contains("not a mapping model's <database>"), "\(notMapping.message)")
        let broken = folder.file("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        var xml = try String(contentsOf: NotebookFixtures.mapping2to3.appendingPathComponent("xcmapping.xml"), encoding: .utf8)
        xml = xml.replacingOccurrences(of: "<attribute name=\"mappingtypename\" type=\"string\">Remove</attribute>",
                                       with: "<attribute name=\"mappingtypename\" type=\"string\">Explode</attribute>")
        try Data(xml.utf8).write(to: broken.appendingPathComponent("xcmapping.xml"))
        let kind = try #require(throws: NimbusError.self) { try MappingModel(contentsOf: broken) }
        #expect(kind.message.hasPrefix(broken.appendingPathComponent("xcmapping.xml").path + ":"), "\(kind.message)")
        #expect(kind.message.contains("mapping type \"Explode\""))
        let archive = xml.replacingOccurrences(of: "Explode", with: "Remove")
            .replacingOccurrences(of: "<attribute name=\"valueexpressiondata\" type=\"binary\">YnBsaXN0", with: "<attribute name=\"valueexpressiondata\" type=\"binary\">AAAA")
        try Data(archive.utf8).write(to: broken.appendingPathComponent("xcmapping.xml"))
        let unreadable = try #require(throws: NimbusError.self) { try MappingModel(contentsOf: broken) }
        #expect(unreadable.message.contains("the value expression cannot be read"), "\(unreadable.message)")
        #expect { try MappingExpression(format: "FUNCTION($source.title") } throws: { ($0 as? NimbusError)?.code == .invalidPredicate }
    }

    @Test("a mapping whose new objects break the destination model fails naming the object, and leaves no file")
    func validationFailure() throws {
        let folder = try TemporaryDirectory()
        let source = folder.file("Notes.sqlite")
        let v2 = try NotebookFixtures.version(2)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: v2)
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: source))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let work = try context.insert("Folder", ["name": "Work", "createdAt": Date()])
            _ = try context.insert("Note", ["title": "a", "folder": work])
            try context.save()
        }
        try coordinator.removePersistentStore(store)
        // No priority mapping: Note.priority is required in version 3 and has no default.
        var mapping = try MappingModel(contentsOf: NotebookFixtures.mapping2to3)
        mapping.entityMappings[1].attributeMappings.removeAll { $0.name == "priority" }
        mapping.entityMappings[1].migrationPolicyName = nil
        let destination = folder.file("Migrated.sqlite")
        let manager = MigrationManager(sourceModel: v2, destinationModel: try NotebookFixtures.version(3))
        let error = try #require(throws: NimbusError.self) { try manager.migrateStore(from: source, to: destination, mapping: mapping) }
        #expect(error.code == .migrationFailed)
        #expect(error.validationFailures.map(\.description).first?.hasPrefix("Note.priority: is required (object x-coredata:///Note/t") == true, "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        // A store mirrored by Apple's Core Data (whose CloudKit metadata Nimbus cannot carry) is
        // refused before any work; Nimbus's own metadata is carried (ConfigurationMigrationTests).
        let queue = try DatabaseQueue(path: source.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY)") }
        try queue.close()
        var complete = try MappingModel(contentsOf: NotebookFixtures.mapping2to3)
        complete.entityMappings[1].migrationPolicyName = nil
        let mirrored = try #require(throws: NimbusError.self) { try manager.migrateStore(from: source, to: destination, mapping: complete) }
        #expect(mirrored.message.contains("mirrored to CloudKit by Apple's Core Data"), "\(mirrored.message)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test("a mapping model built in code of copy mappings carries every object, attribute and relationship into a new file")
    func copyMappings() throws {
        let folder = try TemporaryDirectory()
        let source = folder.file("Notes.sqlite")
        let v2 = try NotebookFixtures.version(2)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: v2)
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: source))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let work = try context.insert("Folder", ["name": "Work", "createdAt": Date(timeIntervalSinceReferenceDate: 5)])
            let tag = try context.insert("Tag", ["name": "t"])
            let note = try context.insert("Note", ["title": "a", "text": "body", "starred": true, "folder": work])
            try note.addObjects([tag], toRelationship: "tags")
            try context.save()
        }
        try coordinator.removePersistentStore(store)
        let mapping = MappingModel(entityMappings: ["Folder", "Note", "Tag"].map { EntityMapping(kind: .copy, source: $0, destination: $0) })
        let destination = folder.file("Copy.sqlite")
        let manager = MigrationManager(sourceModel: v2, destinationModel: v2)
        let fractions = Mutex<[Double]>([])
        manager.progress = { fraction, _ in fractions.withLock { $0.append(fraction) } }
        try manager.migrateStore(from: source, to: destination, mapping: mapping)
        #expect(fractions.withLock { $0.last } == 1)
        let copy = PersistentStoreCoordinator(managedObjectModel: v2)
        try copy.addPersistentStore(with: PersistentStoreDescription(url: destination))
        let check = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: copy)
        try check.performAndWait { () throws in
            let note = try #require(try check.all("Note").first)
            #expect(note.value(forKey: "text") as? String == "body")
            #expect(note.value(forKey: "starred") as? Bool == true)
            #expect((note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String == "Work")
            #expect(((note.value(forKey: "tags") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String } == ["t"])
            #expect((try check.all("Folder").first?.value(forKey: "createdAt") as? Date) == Date(timeIntervalSinceReferenceDate: 5))
        }
    }
}
