import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Object registry")
struct ObjectRegistryTests {
    static let model: ManagedObjectModel = try! ManagedObjectModel {
        EntityDescription("Post") { AttributeDescription("title", .string) }
        EntityDescription("Tag") { AttributeDescription("name", .string) }
    }

    @Test("random registrations, removals and ID changes agree with a dictionary", arguments: [1, 2, 3])
    func agreesWithDictionary(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let entities = [try Self.model.entity(named: "Post"), try Self.model.entity(named: "Tag")]
        let registry = ObjectRegistry()
        registry.retainsObjects = true
        var reference: [ManagedObjectID: ManagedObject] = [:]
        func randomID() -> ManagedObjectID {
            // Few keys, two entities and two stores: many collisions and long probe runs.
            ManagedObjectID(entity: entities[Int.random(in: 0...1, using: &random)], storeKey: UInt32.random(in: 1...2, using: &random),
                            primaryKey: Int64.random(in: 1...3_000, using: &random))
        }
        for step in 0..<40_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let id = randomID()
                let object = ManagedObject(materializing: .init(id: id, context: ContextReference(isMainQueue: false), snapshot: nil, asFault: true))
                registry.register(object)
                reference[id] = object
            case 5..<7:
                guard let (_, object) = reference.randomElement(using: &random) else { continue }
                registry.remove(object)
                reference[object.objectID] = nil
            case 7:
                guard let (old, object) = reference.randomElement(using: &random) else { continue }
                let new = randomID()
                guard reference[new] == nil else { continue }
                #expect(registry.changeID(from: old, to: new) === object)
                #expect(object.objectID == new)
                reference[old] = nil
                reference[new] = object
            case 8 where step % 500 == 0:
                // Many IDs at once (as a save makes new objects' IDs permanent): at times most of the table.
                var changes: [(ManagedObject, ManagedObjectID)] = []
                for (old, object) in reference where Bool.random(using: &random) {
                    let new = ManagedObjectID(entity: object.entity, storeKey: 3, primaryKey: Int64(step * 10_000) + Int64(changes.count))
                    changes.append((object, new))
                    reference[old] = nil
                }
                registry.changeIDs(changes)
                for (object, id) in changes {
                    #expect(object.objectID == id)
                    reference[id] = object
                }
            default:
                let id = randomID()
                #expect(registry[id] === reference[id], "lookup of \(id) at step \(step)")
            }
            #expect(registry.count == reference.count)
        }
        for (id, object) in reference { #expect(registry[id] === object) }
        #expect(Set(registry.all.map(ObjectIdentifier.init)) == Set(reference.values.map(ObjectIdentifier.init)))
    }

    @Test("a sweep lets go of objects only the registry holds, and keeps the rest")
    func sweepReleasesUnreferencedObjects() throws {
        let entity = try Self.model.entity(named: "Post")
        let registry = ObjectRegistry()
        var held: [ManagedObject] = []
        weak var released: ManagedObject?
        for key in 1...2_000 {
            let object = ManagedObject(materializing: .init(id: ManagedObjectID(entity: entity, storeKey: 1, primaryKey: Int64(key)),
                                                            context: ContextReference(isMainQueue: false), snapshot: nil, asFault: true))
            registry.register(object)
            if key.isMultiple(of: 2) { held.append(object) } else if key == 1 { released = object }
        }
        registry.sweep()
        #expect(registry.count == 1_000)
        #expect(released == nil, "an object nothing else holds is deallocated")
        for object in held { #expect(registry[object.objectID] === object) }
        #expect(registry[ManagedObjectID(entity: entity, storeKey: 1, primaryKey: 1)] == nil)
    }

    @Test("objects the app fetched and dropped are let go at the next save, without asking for registeredObjects")
    func droppedObjectsGoAtTheNextSave() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for index in 0..<3_000 { try context.insert("Post", ["title": "post \(index)"]) }
            try context.save()
            context.reset()
            weak var dropped: ManagedObject?
            var posts: [ManagedObject]? = try context.all("Post")
            dropped = posts?[10]
            #expect(dropped != nil)
            posts = nil
            #expect(dropped != nil, "still registered until the context sweeps")
            try context.insert("Post", ["title": "one more"])
            try context.save()
            #expect(dropped == nil, "the save swept objects only the registry held")
        }
    }

    @Test("a context lets go of unchanged objects the app dropped, keeps changed ones, and keeps all when asked")
    func contextReleasesDroppedObjects() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for index in 0..<50 { try context.insert("Post", ["title": "post \(index)"]) }
            try context.save()
            context.reset()
            var posts = try context.all("Post")
            posts[0].setValue("changed", forKey: "title")
            let kept = posts[1]
            posts = []
            #expect(context.registeredObjects.count == 2, "the changed object and the one still referenced")
            #expect(context.registeredObjects.contains(kept))
            try context.save()

            context.reset()
            context.retainsRegisteredObjects = true
            _ = try context.all("Post")
            #expect(context.registeredObjects.count == 50)
        }
    }
}
