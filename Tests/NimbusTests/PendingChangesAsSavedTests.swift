import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// A fetch that includes unsaved changes answers as the same data saved would: random posts,
/// saved in one store; in another, partly saved, then changed without saving (new objects,
/// edits, deletions) into the same final state; and in a child context of the second.
@Suite("Unsaved changes fetch as if saved")
struct PendingChangesAsSavedTests {
    struct Post: Equatable {
        var title: String?
        var views: Int64
        var rating: Double?
        var published: Bool
    }

    static func posts(seed: UInt64) -> [Post] {
        var random = SeededGenerator(seed: seed)
        return (0..<60).map { _ in
            Post(title: ["alpha", "Beta", "gamma", "delta", "Épsilon", nil].randomElement(using: &random)!,
                 views: Int64.random(in: 0...9, using: &random),
                 rating: Bool.random(using: &random) ? Double(Int.random(in: 0...50, using: &random)) / 10 : nil,
                 published: Bool.random(using: &random))
        }
    }

    static func set(_ object: ManagedObject, to post: Post) {
        object.setValue(post.title, forKey: "title")
        object.setValue(post.views, forKey: "views")
        object.setValue(post.rating, forKey: "rating")
        object.setValue(post.published, forKey: "published")
    }

    static let requests: [(String, @Sendable (inout FetchRequest<ManagedObject>) throws -> Void)] = [
        ("views > 4 by title, views, rating", {
            $0.predicate = try QueryPredicate(format: "views > 4")
            $0.sortDescriptors = [FetchSortDescriptor("title"), FetchSortDescriptor("views"), FetchSortDescriptor("rating"), FetchSortDescriptor("published")]
        }),
        ("published, by rating descending, offset 3, limit 8", {
            $0.predicate = try QueryPredicate(format: "published == YES")
            $0.sortDescriptors = [FetchSortDescriptor("rating", ascending: false), FetchSortDescriptor("views"), FetchSortDescriptor("title")]
            $0.fetchOffset = 3
            $0.fetchLimit = 8
        }),
        ("title CONTAINS[cd] 'a' or rating == nil, case-insensitive title order, limit 12", {
            $0.predicate = try QueryPredicate(format: "title CONTAINS[cd] 'a' OR rating == nil")
            $0.sortDescriptors = [FetchSortDescriptor("title", comparison: .caseInsensitive), FetchSortDescriptor("views"),
                                  FetchSortDescriptor("rating"), FetchSortDescriptor("published")]
            $0.fetchLimit = 12
        }),
        ("localized title order, views between 2 and 6", {
            $0.predicate = try QueryPredicate(format: "views BETWEEN {2, 6}")
            $0.sortDescriptors = [FetchSortDescriptor("title", comparison: .localizedStandard), FetchSortDescriptor("views"),
                                  FetchSortDescriptor("rating"), FetchSortDescriptor("published")]
        }),
    ]

    static func answer(_ context: ManagedObjectContext, _ configure: (inout FetchRequest<ManagedObject>) throws -> Void) throws -> (rows: [String], count: Int) {
        var request = FetchRequest<ManagedObject>(entityName: "Post")
        try configure(&request)
        return try context.performAndWait {
            let rows = try context.fetch(request).map { post in
                "\(post.value(forKey: "title") as? String ?? "nil") \(post.value(forKey: "views") as? Int64 ?? -1) "
                    + "\(post.value(forKey: "rating") as? Double ?? -1) \(post.value(forKey: "published") as? Bool ?? false)"
            }
            return (rows, try context.count(for: request))
        }
    }

    @Test("as a saved store answers", arguments: [UInt64(11), 12, 13])
    func pendingAsSaved(seed: UInt64) throws {
        let final = Self.posts(seed: seed)
        let saved = try TestStack()
        let savedContext = saved.newContext()
        try savedContext.performAndWait { () throws in
            for post in final { Self.set(try savedContext.insertNewObject(forEntityName: "Post"), to: post) }
            try savedContext.save()
        }

        // The same final state: the first half saved with other values, then edited; an
        // extra saved post deleted; the second half inserted; none of it saved.
        let pending = try TestStack()
        let context = pending.newContext()
        try context.performAndWait { () throws in
            var random = SeededGenerator(seed: seed &* 31)
            let half = final.count / 2
            var firstHalf: [ManagedObject] = []
            for _ in 0..<half {
                let object = try context.insertNewObject(forEntityName: "Post")
                Self.set(object, to: Self.posts(seed: random.next())[0])
                firstHalf.append(object)
            }
            let doomed = try context.insertNewObject(forEntityName: "Post")
            Self.set(doomed, to: Post(title: "alpha", views: 5, rating: 1, published: true))
            try context.save()
            for (object, post) in zip(firstHalf, final) { Self.set(object, to: post) }
            context.delete(doomed)
            for post in final[half...] { Self.set(try context.insertNewObject(forEntityName: "Post"), to: post) }
        }
        #expect(context.performAndWait { context.hasChanges && !context.insertedObjects.isEmpty && !context.deletedObjects.isEmpty })
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: context)

        for (name, configure) in Self.requests {
            let expected = try Self.answer(savedContext, configure)
            #expect(!expected.rows.isEmpty, "seed \(seed): \(name) matches nothing, so it compares nothing")
            let unsaved = try Self.answer(context, configure)
            #expect(unsaved.rows == expected.rows, "seed \(seed): \(name), unsaved changes")
            #expect(unsaved.count == expected.count, "seed \(seed): count of \(name), unsaved changes")
            let nested = try Self.answer(child, configure)
            #expect(nested.rows == expected.rows, "seed \(seed): \(name), child of a context with unsaved changes")
            #expect(nested.count == expected.count, "seed \(seed): count of \(name), child context")
        }
    }
}
