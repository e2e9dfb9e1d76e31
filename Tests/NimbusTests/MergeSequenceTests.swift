import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// A context that merges another's saves stays what the store holds, with its own unsaved
/// edits on top: random saves by a writer, merged by a reader holding edits of its own.
@Suite("Merging random saves")
struct MergeSequenceTests {
    /// A post as the test compares it.
    static func describe(_ post: ManagedObject) -> String {
        let tags = (post.value(forKey: "tags") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
        return "\(post.value(forKey: "identifier") as? UUID ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))) "
            + "\(post.value(forKey: "title") as? String ?? "nil") \(post.value(forKey: "views") as? Int64 ?? -1) "
            + "\(post.value(forKey: "body") as? String ?? "nil") \(tags)"
    }

    @Test("the reader sees every save, its own edits kept", arguments: (UInt64(41)...UInt64(48)).map { $0 })
    func merge(seed: UInt64) throws {
        let stack = try TestStack()
        let writer = stack.newContext(), reader = stack.newContext()
        reader.automaticallyMergesChangesFromParent = true
        var random = SeededGenerator(seed: seed)
        try writer.performAndWait { () throws in
            for name in ["swift", "sql", "sync"] { _ = try writer.insert("Tag", ["name": name]) }
            for index in 0..<6 { _ = try writer.insert("Post", ["title": "p\(index)", "views": Int64(index), "identifier": UUID()]) }
            try writer.save()
        }
        // The reader's own unsaved edits: bodies (which the writer never writes) and some titles.
        var localBodies: [UUID: String] = [:], localTitles: [UUID: String] = [:]
        var protected: Set<UUID> = []
        try reader.performAndWait { () throws in
            for post in try reader.all("Post") {
                let id = post.value(forKey: "identifier") as! UUID
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    post.setValue("mine", forKey: "body")
                    localBodies[id] = "mine"
                    protected.insert(id)
                case 1:
                    post.setValue("my title", forKey: "title")
                    localTitles[id] = "my title"
                    protected.insert(id)
                default: break
                }
            }
        }

        for step in 0..<30 {
            try writer.performAndWait { () throws in
                let posts = try writer.all("Post"), tags = try writer.all("Tag")
                switch Int.random(in: 0..<5, using: &random) {
                case 0:
                    _ = try writer.insert("Post", ["title": "new\(step)", "views": Int64(step), "identifier": UUID()])
                case 1:
                    let post = posts.randomElement(using: &random)!
                    post.setValue("w\(step)", forKey: "title")
                    post.setValue(Int64.random(in: 0...99, using: &random), forKey: "views")
                case 2:
                    let deletable = posts.filter { !protected.contains($0.value(forKey: "identifier") as! UUID) }
                    if let post = deletable.randomElement(using: &random) { writer.delete(post) }
                case 3:
                    let post = posts.randomElement(using: &random)!, tag = tags.randomElement(using: &random)!
                    let set = post.mutableSetValue(forKey: "tags")
                    if set.contains(tag) { set.remove(tag) } else { set.add(tag) }
                default:
                    posts.randomElement(using: &random)!.setValue(Int64(1000 + step), forKey: "views")
                }
                try writer.save()
            }
            // The merge was queued on the reader's queue during the save: this block runs after it.
            let seen = try reader.performAndWait { try reader.all("Post").map(Self.describe).sorted() }
            let check = try stack.reopenedContext()
            let expected = try check.performAndWait { () throws in
                try check.all("Post").map { post in
                    let id = post.value(forKey: "identifier") as! UUID
                    if let body = localBodies[id] { post.setValue(body, forKey: "body") }
                    if let title = localTitles[id] { post.setValue(title, forKey: "title") }
                    return Self.describe(post)
                }.sorted()
            }
            #expect(seen == expected, "seed \(seed), step \(step)")
        }
    }
}
