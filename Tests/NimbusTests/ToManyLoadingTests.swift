import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Bulk loading of to-many relationships: prefetching, faults fired in batches, kept values.
@Suite("To-many loading")
struct ToManyLoadingTests {
    /// 30 authors with 3 posts each; every post has 2 of 5 tags and 2 ordered attachments
    /// (an image and a file, in alternating order).
    private func seed(_ stack: TestStack) throws {
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let tags = try (0..<5).map { try context.insert("Tag", ["name": "t\($0)"]) }
            for a in 0..<30 {
                let author = try context.insert("Person", ["name": "a\(a)"])
                for p in 0..<3 {
                    let post = try context.insert("Post", ["title": "a\(a)p\(p)", "author": author])
                    post.setValue(Set([tags[(a + p) % 5], tags[(a + p + 2) % 5]]), forKey: "tags")
                    let image = try context.insert("ImageAttachment", ["fileName": "i\(a)-\(p)"])
                    let file = try context.insert("FileAttachment", ["fileName": "f\(a)-\(p)", "size": p])
                    post.setValue(p % 2 == 0 ? [image, file] : [file, image], forKey: "attachments")
                }
            }
            try context.save()
        }
    }

    /// What each author's posts, tags and attachments are, read object by object (one
    /// statement per relationship, in a nested context that reads through its parent).
    private func expectedGraph(_ stack: TestStack) throws -> [String: [String]] {
        let parent = try stack.reopenedContext()
        let nested = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        return try nested.performAndWait { () throws in try Self.graph(nested) }
    }

    private static func graph(_ context: ManagedObjectContext) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for author in try context.all("Person", sortedBy: "name") {
            let posts = try #require(author.value(forKey: "posts") as? Set<ManagedObject>)
            for post in posts {
                let title = try #require(post.value(forKey: "title") as? String)
                let tags = try #require(post.value(forKey: "tags") as? Set<ManagedObject>).compactMap { $0.value(forKey: "name") as? String }.sorted()
                let attachments = try #require(post.value(forKey: "attachments") as? [ManagedObject]).compactMap { $0.value(forKey: "fileName") as? String }
                result[title] = [author.value(forKey: "name") as! String] + tags + attachments
            }
        }
        return result
    }

    @Test("prefetching reads each level of a key path with one statement")
    func prefetchOneStatementPerLevel() throws {
        let stack = try TestStack(recordSQL: true)
        try seed(stack)
        let expected = try expectedGraph(stack)
        let (context, store) = try stack.reopenedContextRecording()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.relationshipKeyPathsForPrefetching = ["posts.tags", "posts.attachments"]
            let authors = try context.fetch(request)
            // People, their posts, the posts' tags, the posts' attachments: four statements.
            #expect(entitySelects(store).count == 4, "\(entitySelects(store))")
            #expect(authors.count == 30)
            let graph = try Self.graph(context)
            #expect(entitySelects(store).count == 5, "only the sorted fetch of people in graph(); \(entitySelects(store))")
            #expect(graph == expected)
        }
    }

    @Test("walking fetched objects fires their to-many faults in a few batches, with the same members")
    func batchedFaults() throws {
        let stack = try TestStack(recordSQL: true)
        try seed(stack)
        let expected = try expectedGraph(stack)
        let (context, store) = try stack.reopenedContextRecording()
        try context.performAndWait { () throws in
            let posts = try context.all("Post", sortedBy: "title")
            var tags: [String: [String]] = [:]
            for post in posts {
                let names = (post.value(forKey: "tags") as! Set<ManagedObject>).map { $0.value(forKey: "name") as! String }
                tags[post.value(forKey: "title") as! String] = names.sorted()
            }
            // The fetch, then batches of 1, 16, 64 and 9 posts (the tags' rows come with them),
            // each read with a list of keys or, where the keys lie close, a statement per range
            // of keys (at most two here): far fewer statements than posts (90).
            let statements = entitySelects(store)
            #expect(statements.count >= 5 && statements.count <= 9, "\(statements)")
            #expect(statements.dropFirst().allSatisfy { $0.contains("Z_5TAGS") }, "\(statements)")
            for (title, names) in tags { #expect(Array(expected[title]![1...2]) == names, "\(title)") }
        }
    }

    @Test("touching one fetched object's to-many reads only its own")
    func singleTouch() throws {
        let stack = try TestStack(recordSQL: true)
        try seed(stack)
        let (context, store) = try stack.reopenedContextRecording()
        try context.performAndWait { () throws in
            let posts = try context.all("Post", sortedBy: "title")
            _ = posts[40].value(forKey: "tags")
            _ = posts[7].value(forKey: "tags")
            #expect(entitySelects(store).count == 3)
            #expect(posts.filter { $0.loadedToMany.contains($0.entity.propertyIndexes["tags"]!) }.count == 2)
        }
    }

    @Test("a to-many value is built once while its members are unchanged, and follows changes")
    func keptValue() throws {
        let stack = try TestStack()
        try seed(stack)
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            let post = try #require(try context.all("Post", sortedBy: "title").first)
            let first = try #require(post.value(forKey: "tags") as? Set<ManagedObject>)
            let again = try #require(post.value(forKey: "tags") as? Set<ManagedObject>)
            #expect(first == again)
            let index = post.entity.propertyIndexes["tags"]!
            guard case let .objects(ids) = post.values![index] else { Issue.record("tags not loaded"); return }
            #expect(post.toManyValues.value(at: index, for: ids, ordered: false) != nil)
            // A different array with the same members is not taken for the kept one's.
            #expect(post.toManyValues.value(at: index, for: Array(ids.reversed()).reversed(), ordered: false) == nil)
            let extra = try context.insert("Tag", ["name": "new"])
            try post.addObjects([extra], toRelationship: "tags")
            let changed = try #require(post.value(forKey: "tags") as? Set<ManagedObject>)
            #expect(changed == first.union([extra]))
            try post.removeObjects([extra], fromRelationship: "tags")
            #expect(post.value(forKey: "tags") as? Set<ManagedObject> == first)
            context.refresh(post, mergeChanges: false)
            #expect(post.toManyValues.isEmpty)
            #expect(post.value(forKey: "tags") as? Set<ManagedObject> == first)
        }
    }

    @Test("a prefetched relationship gives the context's own objects, in order, and a refresh forgets them")
    func prefetchedMembersAreTheRegisteredObjects() throws {
        let stack = try TestStack()
        try seed(stack)
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.relationshipKeyPathsForPrefetching = ["tags", "attachments"]
            let posts = try context.fetch(request)
            #expect(posts.count == 90)
            for post in posts {
                for key in ["tags", "attachments"] {
                    let index = post.entity.propertyIndexes[key]!
                    guard case let .objects(ids) = post.values![index] else { Issue.record("\(key) not loaded"); return }
                    let members: [ManagedObject] = key == "tags"
                        ? Array(try #require(post.value(forKey: key) as? Set<ManagedObject>))
                        : try #require(post.value(forKey: key) as? [ManagedObject])
                    #expect(members.count == 2)
                    for member in members { #expect(context.registeredObject(for: member.objectID) === member) }
                    if key == "attachments" { #expect(members.map(\.objectID) == ids) }
                }
            }
            let post = posts[0]
            let before = try #require(post.value(forKey: "tags") as? Set<ManagedObject>)
            context.refresh(post, mergeChanges: false)
            #expect(post.toManyValues.isEmpty)
            #expect(try #require(post.value(forKey: "tags") as? Set<ManagedObject>) == before)
        }
    }

    @Test("sources without members, between and after ones with members, in any fetch order, load as empty in the same statement")
    func prefetchWithEmptySources() throws {
        let stack = try TestStack(recordSQL: true)
        // Authors 0..<12 in key order; only 1, 4, 7 and 10 have posts (as many as their number)
        // (so the first, the middle ones and the last two have none).
        let context = stack.newContext()
        var expected: [String: Set<String>] = [:]
        try context.performAndWait { () throws in
            for a in 0..<12 {
                let author = try context.insert("Person", ["name": "a\(String(format: "%02d", a))"])
                var titles = Set<String>()
                if a % 3 == 1 {
                    for p in 0..<a { titles.insert("a\(a)p\(p)"); _ = try context.insert("Post", ["title": "a\(a)p\(p)", "author": author]) }
                }
                expected["a\(String(format: "%02d", a))"] = titles
            }
            try context.save()
        }
        let (reader, store) = try stack.reopenedContextRecording()
        try reader.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            // Descending names: the results' order is the opposite of the keys'.
            request.sortDescriptors = [FetchSortDescriptor("name", ascending: false)]
            request.relationshipKeyPathsForPrefetching = ["posts"]
            let authors = try reader.fetch(request)
            #expect(entitySelects(store).count == 2, "\(entitySelects(store))")
            var loaded: [String: Set<String>] = [:]
            for author in authors {
                let posts = try #require(author.value(forKey: "posts") as? Set<ManagedObject>)
                loaded[author.value(forKey: "name") as! String] = Set(posts.map { $0.value(forKey: "title") as! String })
            }
            #expect(entitySelects(store).count == 2, "every author's posts, empty or not, came with the prefetch; \(entitySelects(store))")
            #expect(loaded == expected)
        }
    }

    @Test("sources with nearby keys are read by ranges, skipping the rows of sources between them; scattered ones by a list of keys",
          arguments: [(1, "BETWEEN"), (2, "BETWEEN"), (4, "BETWEEN"), (10, " IN (")])
    func prefetchSubsets(every step: Int, expectedSQL: String) throws {
        let stack = try TestStack(recordSQL: true)
        // 90 people, each with as many posts as their age modulo 4.
        let context = stack.newContext()
        var expected: [Int: Set<String>] = [:]
        try context.performAndWait { () throws in
            for age in 0..<90 {
                let person = try context.insert("Person", ["name": "p\(age)", "age": age])
                expected[age] = Set((0..<(age % 4)).map { "p\(age)-\($0)" })
                for title in expected[age]! { _ = try context.insert("Post", ["title": title, "author": person]) }
            }
            try context.save()
        }
        let (reader, store) = try stack.reopenedContextRecording()
        try reader.performAndWait { () throws in
            let people = try reader.all("Person").sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }
            let chosen = people.enumerated().filter { $0.offset % step == 0 }.map(\.element)
            let before = entitySelects(store).count
            try reader.prefetch(["posts"], for: chosen)
            let statements = Array(entitySelects(store).dropFirst(before))
            #expect(statements.count == 1 && statements[0].contains(expectedSQL), "\(statements)")
            let index = chosen[0].entity.propertyIndexes["posts"]!
            for (offset, person) in people.enumerated() {
                let age = person.value(forKey: "age") as! Int16
                #expect(person.loadedToMany.contains(index) == (offset % step == 0), "p\(age)")
            }
            for person in chosen {
                let posts = try #require(person.value(forKey: "posts") as? Set<ManagedObject>)
                #expect(Set(posts.map { $0.value(forKey: "title") as! String }) == expected[Int(person.value(forKey: "age") as! Int16)]!)
            }
            #expect(entitySelects(store).count == before + 1, "the chosen people's posts all came with the prefetch")
        }
    }

    @Test("a prefetch key path naming no relationship is an unknownProperty error")
    func badKeyPath() throws {
        let stack = try TestStack()
        try seed(stack)
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.relationshipKeyPathsForPrefetching = ["posts.nothing"]
            #expect(throws: NimbusError.self) { try context.fetch(request) }
            do { _ = try context.fetch(request) } catch let error as NimbusError { #expect(error.code == .unknownProperty) }
        }
    }
}
