import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Random sequences of events (inserts, edits, deletes, to-one and to-many changes), each one
/// undo step: undoing them one by one passes back through every earlier state, and redoing
/// them through every later one, up to a save that writes the last.
@Suite("Undo of random event sequences")
struct UndoSequenceTests {
    /// What the test compares: every object ever made, with its title or name, views, author
    /// and tags (as positions in `objects`), or "gone" when it is not a live object of the context.
    static func state(of objects: [ManagedObject], in context: ManagedObjectContext) -> [String] {
        func position(_ object: ManagedObject?) -> String {
            object.flatMap { o in objects.firstIndex { $0 === o } }.map(String.init) ?? "-"
        }
        return objects.map { object in
            guard object.managedObjectContext === context, !object.isDeleted else { return "gone" }
            switch object.entity.name {
            case "Post":
                let tags = (object.value(forKey: "tags") as? Set<ManagedObject> ?? []).map { position($0) }.sorted()
                return "post \(object.value(forKey: "title") as? String ?? "nil") \(object.value(forKey: "views") as? Int64 ?? -1) "
                    + "by \(position(object.value(forKey: "author") as? ManagedObject)) tags \(tags)"
            case "Tag":
                let posts = (object.value(forKey: "posts") as? Set<ManagedObject> ?? []).map { position($0) }.sorted()
                return "tag \(object.value(forKey: "name") as? String ?? "nil") on \(posts)"
            default:
                let posts = (object.value(forKey: "posts") as? Set<ManagedObject> ?? []).map { position($0) }.sorted()
                return "person \(object.value(forKey: "name") as? String ?? "nil") wrote \(posts)"
            }
        }
    }

    @Test("undo and redo walk back and forth through every state", arguments: (UInt64(21)...UInt64(32)).map { $0 })
    func walk(seed: UInt64) throws {
        let stack = try TestStack()
        let context = stack.newContext()
        var random = SeededGenerator(seed: seed)
        try context.performAndWait { () throws in
            var objects: [ManagedObject] = []
            for name in ["ada", "grace"] { objects.append(try context.insert("Person", ["name": name])) }
            for name in ["swift", "sql", "sync"] { objects.append(try context.insert("Tag", ["name": name])) }
            for index in 0..<4 { objects.append(try context.insert("Post", ["title": "p\(index)", "views": Int64(index)])) }
            try context.save()
            let undo = ContextUndoManager()
            context.undoManager = undo

            func live(_ entity: String) -> [ManagedObject] {
                objects.filter { $0.entity.name == entity && $0.managedObjectContext === context && !$0.isDeleted }
            }
            var states = [Self.state(of: objects, in: context)]
            var steps = 0
            while steps < 40 {
                let posts = live("Post"), tags = live("Tag"), people = live("Person")
                switch Int.random(in: 0..<7, using: &random) {
                case 0 where !posts.isEmpty:
                    posts.randomElement(using: &random)!.setValue("t\(steps)", forKey: "title")
                case 1 where !posts.isEmpty:
                    let post = posts.randomElement(using: &random)!
                    post.setValue(Int64.random(in: 0...99, using: &random), forKey: "views")
                    post.setValue("v\(steps)", forKey: "title")
                case 2:
                    let post = try context.insert("Post", ["title": "new\(steps)"])
                    if let tag = tags.randomElement(using: &random) { post.mutableSetValue(forKey: "tags").add(tag) }
                    objects.append(post)
                case 3 where !posts.isEmpty:
                    context.delete(posts.randomElement(using: &random)!)
                case 4 where !posts.isEmpty:
                    posts.randomElement(using: &random)!.setValue(people.randomElement(using: &random), forKey: "author")
                case 5 where !posts.isEmpty && !tags.isEmpty:
                    let post = posts.randomElement(using: &random)!, tag = tags.randomElement(using: &random)!
                    let set = post.mutableSetValue(forKey: "tags")
                    if set.contains(tag) { set.remove(tag) } else { set.add(tag) }
                case 6:
                    let tag = try context.insert("Tag", ["name": "tag\(steps)"])
                    objects.append(tag)
                default:
                    continue
                }
                try context.processPendingChanges()
                // Setting a value it already had changes nothing, and makes no undo step.
                let state = Self.state(of: objects, in: context)
                guard state != states.last! + Array(repeating: "gone", count: state.count - states.last!.count) else { continue }
                states.append(state)
                steps += 1
            }
            #expect(states.last != states.first)
            // Objects made later were not there yet: gone, in the earlier states.
            states = states.map { $0 + Array(repeating: "gone", count: objects.count - $0.count) }

            for step in stride(from: steps, to: 0, by: -1) {
                #expect(undo.canUndo, "seed \(seed): nothing to undo at step \(step)")
                undo.undo()
                #expect(Self.state(of: objects, in: context) == states[step - 1], "seed \(seed): after undoing step \(step)")
            }
            #expect(!context.hasChanges, "seed \(seed): undoing every step leaves nothing to save")
            for step in 1...steps {
                #expect(undo.canRedo, "seed \(seed): nothing to redo at step \(step)")
                undo.redo()
                #expect(Self.state(of: objects, in: context) == states[step], "seed \(seed): after redoing step \(step)")
            }
            try context.save()
            context.reset()
            let saved = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).compactMap { $0.value(forKey: "title") as? String }.sorted()
            let expected = states.last!.filter { $0.hasPrefix("post ") }.map { $0.split(separator: " ")[1] }.map(String.init).sorted()
            #expect(saved == expected, "seed \(seed): the saved posts are the last state's")
        }
    }
}
