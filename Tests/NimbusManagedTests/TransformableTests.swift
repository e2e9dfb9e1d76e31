import Foundation
import GRDB
import Nimbus
import NimbusTesting
import Testing

// Transformable attributes through @Managed: a Codable struct, collections of values (made
// transformable without being told), and a collection of structs marked @Attribute(.transformable).

struct Palette: ManagedTransformable, Equatable {
    var name: String
    var colors: [String]
    var weights: [String: Double]
}

struct Stroke: Codable, Equatable {
    var x: Double
    var y: Double
}

@Managed final class Sketch: ManagedObject {
    var title: String?
    var palette: Palette?
    var tags: [String] = []
    var scores: [String: Int]?
    var visitors: Set<UUID>?
    @Attribute(.transformable) var strokes: [Stroke]?
}

@Suite("Transformable attributes through @Managed")
struct TransformableTests {
    func context(_ folder: TemporaryDirectory) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(Sketch.self))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Sketches.sqlite")))
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    @Test("each Codable property is a transformable attribute named after its type")
    func entity() throws {
        let entity = try ManagedObjectModel(Sketch.self).entity(named: "Sketch")
        for name in ["palette", "tags", "scores", "visitors", "strokes"] {
            #expect(entity.attributesByName[name]?.type == .transformable, "\(name)")
        }
        #expect(entity.attributesByName["palette"]?.valueTransformerName == String(reflecting: Palette.self))
        #expect(entity.attributesByName["tags"]?.isOptional == false)
        #expect(entity.attributesByName["strokes"]?.isOptional == true)
        #expect(entity.relationshipsByName.isEmpty)
    }

    @Test("an optional boxed in Any sets a transformable to what it wraps, nil as nil")
    func boxedOptionals() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        try context.performAndWait {
            let sketch = Sketch(context: context)
            let palette: Palette? = Palette(name: "sea", colors: ["teal"], weights: [:]), none: Palette? = nil
            let values: [String: Any] = ["palette": palette as Any]
            try sketch.setValidatedValue(values["palette"], forKey: "palette")
            #expect(sketch.palette == palette)
            try sketch.setValidatedValue(none as Any, forKey: "palette")
            #expect(sketch.palette == nil)
            #expect(sketch.value(forKey: "palette") == nil)
            try context.save()
        }
    }

    @Test("typed values save, read back after a reset and from another context, and value(forKey:) decodes them")
    func roundTrip() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        let palette = Palette(name: "sea", colors: ["teal", "navy"], weights: ["teal": 0.75, "navy": .infinity])
        let visitor = UUID()
        try context.performAndWait {
            let sketch = Sketch(context: context)
            sketch.title = "Harbour"
            #expect(sketch.tags == [])
            sketch.palette = palette
            sketch.tags = ["sea", "boats"]
            sketch.scores = ["ana": 3, "bo": 5]
            sketch.visitors = [visitor]
            sketch.strokes = [Stroke(x: 1, y: 2), Stroke(x: 3.5, y: -4)]
            try context.save()
            context.reset()

            let fetched = try #require(try Sketch.fetchRequest().execute().first)
            #expect(fetched.palette == palette)
            #expect(fetched.tags == ["sea", "boats"])
            #expect(fetched.scores == ["ana": 3, "bo": 5])
            #expect(fetched.visitors == [visitor])
            #expect(fetched.strokes == [Stroke(x: 1, y: 2), Stroke(x: 3.5, y: -4)])
            #expect(fetched.value(forKey: "palette") as? Palette == palette)
            #expect(fetched.value(forKey: "tags") as? [String] == ["sea", "boats"])
        }
        let other = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: context.persistentStoreCoordinator)
        try other.performAndWait {
            let fetched = try #require(try Sketch.fetchRequest().execute().first)
            #expect(fetched.palette?.weights["navy"] == .infinity)
            fetched.palette = nil
            fetched.strokes = nil
            try other.save()
        }
        try context.performAndWait {
            context.reset()
            let fetched = try #require(try Sketch.fetchRequest().execute().first)
            #expect(fetched.palette == nil && fetched.strokes == nil && fetched.tags == ["sea", "boats"])
        }
    }

    @Test("setting an equal value is no change; a different one is, and rollback restores the saved value")
    func changes() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        try context.performAndWait {
            let sketch = Sketch(context: context)
            sketch.palette = Palette(name: "a", colors: ["x"], weights: ["b": 1, "a": 2, "c": 3])
            try context.save()
            sketch.palette = Palette(name: "a", colors: ["x"], weights: ["c": 3, "a": 2, "b": 1])
            #expect(!sketch.hasChanges)
            sketch.tags.append("new")
            #expect(sketch.hasChanges)
            #expect(sketch.changedValues().keys.sorted() == ["tags"])
            context.rollback()
            #expect(sketch.tags == [])
        }
    }

    @Test("a stored value that no longer decodes as the type reads nil (optional) or the declared default (required), and its bytes stay")
    func undecodable() throws {
        let folder = try TemporaryDirectory()
        let context = try context(folder)
        try context.performAndWait {
            let sketch = Sketch(context: context)
            sketch.palette = Palette(name: "new layout", colors: [], weights: [:])
            try context.save()
        }
        // The JSON an older Palette wrote (no colors, no weights).
        let oldLayout = Data(#"{"name":"old layout"}"#.utf8)
        try DatabaseQueue(path: folder.file("Sketches.sqlite").path).write { db in
            try db.execute(sql: "UPDATE ZSKETCH SET ZPALETTE = ?", arguments: [oldLayout])
            // And tags a newer version wrote as an object, which [String] cannot read.
            try db.execute(sql: "UPDATE ZSKETCH SET ZTAGS = ?", arguments: [Data(#"{"tag":"sea"}"#.utf8)])
        }
        let reopened = try self.context(folder)
        try reopened.performAndWait {
            let fetched = try #require(try Sketch.fetchRequest().execute().first)
            #expect(fetched.palette == nil)
            #expect(fetched.value(forKey: "palette") as? Data == oldLayout)
            // A required property reads its declared default ([]) and keeps the stored bytes.
            #expect(fetched.tags == [])
            #expect(fetched.value(forKey: "tags") as? Data == Data(#"{"tag":"sea"}"#.utf8))
            #expect(!fetched.hasChanges)
        }
    }
}
