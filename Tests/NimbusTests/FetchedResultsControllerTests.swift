import Foundation
@testable import Nimbus
import NimbusTesting
import Testing

@Suite("Fetched results controller")
struct FetchedResultsControllerTests {
    static func request() -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Post")
        request.sortDescriptors = [FetchSortDescriptor("body"), FetchSortDescriptor("views", ascending: false), FetchSortDescriptor("title")]
        return request
    }

    /// A fresh fetch of the request, grouped into sections by `body` as the user expects.
    static func refetch(_ context: ManagedObjectContext) throws -> [ResultsRecorder.Section] {
        var sections: [ResultsRecorder.Section] = []
        for object in try context.fetch(request()) {
            let name = object.value(forKey: "body") as? String ?? ""
            if sections.last?.name == name { sections[sections.count - 1].objects.append(object) } else { sections.append((name, [object])) }
        }
        return sections
    }

    @Test("sections, index titles, object(at:) and indexPath(forObject:) follow the section key path")
    func sections() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for (title, body, views) in [("a", "apple", 3), ("b", "banana", 1), ("c", "apple", 9), ("d", "cherry", 5), ("e", "blueberry", 2)] {
                _ = try context.insert("Post", ["title": title, "body": body, "views": views])
            }
            try context.save()
            let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "body")
            #expect(controller.fetchedObjects == nil)
            try controller.performFetch()
            let sections = try #require(controller.sections)
            #expect(sections.map(\.name) == ["apple", "banana", "blueberry", "cherry"])
            #expect(sections.map(\.numberOfObjects) == [2, 1, 1, 1])
            #expect(sections[0].objects.map { $0.value(forKey: "title") as? String } == ["c", "a"])
            #expect(controller.sectionIndexTitles == ["A", "B", "C"])
            #expect(controller.section(forSectionIndexTitle: "C", at: 2) == 3)
            #expect(controller.fetchedObjects?.count == 5)
            let banana = controller.object(at: ResultsIndexPath(item: 0, section: 1))
            #expect(banana.value(forKey: "title") as? String == "b")
            #expect(controller.indexPath(forObject: banana) == ResultsIndexPath(item: 0, section: 1))
            let unsectioned = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context)
            try unsectioned.performFetch()
            #expect(unsectioned.sections?.count == 1)
            #expect(unsectioned.sections?.first?.numberOfObjects == 5)
        }
    }

    @Test("a save reports will, section, object and did in order, with a new section for a new key")
    func delegateOrder() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let recorder = ResultsRecorder()
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "a", "body": "x", "views": 1])
            try context.save()
            let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "body")
            controller.delegate = recorder
            try controller.performFetch()
            let new = try context.insert("Post", ["title": "b", "body": "y", "views": 1])
            try context.save()
            #expect(recorder.events == ["will", "section", "object", "did"])
            let batch = try #require(recorder.take().first)
            #expect(batch.sectionChanges.map(\.type) == [.insert])
            #expect(batch.sectionChanges.first?.name == "y")
            #expect(batch.objectChanges.count == 1)
            #expect(batch.objectChanges.first?.item === new)
            #expect(batch.objectChanges.first?.newIndexPath == ResultsIndexPath(item: 0, section: 1))

            new.setValue(50, forKey: "views")
            try context.save()
            let update = try #require(recorder.take().first)
            #expect(update.objectChanges.map(\.type) == [.update])
            #expect(update.objectChanges.first?.indexPath == ResultsIndexPath(item: 0, section: 1))

            context.delete(new)
            try context.processPendingChanges()
            let deletion = try #require(recorder.take().first)
            #expect(deletion.sectionChanges.map(\.type) == [.delete])
            #expect(deletion.objectChanges.map(\.type) == [.delete])
            #expect(deletion.objectChanges.first?.indexPath == ResultsIndexPath(item: 0, section: 1))
            try context.save()
            #expect(recorder.take().isEmpty)
            #expect(controller.sections?.map(\.name) == ["x"])
        }
    }

    @Test("a change of sort key reports one move, not a shuffle of its neighbours")
    func singleMove() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let recorder = ResultsRecorder()
        try context.performAndWait { () throws in
            var posts: [ManagedObject] = []
            for i in 0..<10 { posts.append(try context.insert("Post", ["title": "p\(i)", "body": "x", "views": 100 - i])) }
            try context.save()
            let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "body")
            controller.delegate = recorder
            try controller.performFetch()
            let before = controller.snapshot
            posts[8].setValue(1000, forKey: "views")
            try context.save()
            let batch = try #require(recorder.take().first)
            #expect(batch.objectChanges.count == 1)
            #expect(batch.objectChanges.first?.type == .move)
            #expect(batch.objectChanges.first?.indexPath == ResultsIndexPath(item: 8, section: 0))
            #expect(batch.objectChanges.first?.newIndexPath == ResultsIndexPath(item: 0, section: 0))
            #expect(ResultsRecorder.same(ResultsRecorder.apply(batch, to: before), try Self.refetch(context)))
        }
    }

    @Test("a batch update merged with mergeChanges(fromRemoteContextSave:into:) moves objects between sections")
    func batchUpdateMerge() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let recorder = ResultsRecorder()
        let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "body")
        controller.delegate = recorder
        try context.performAndWait { () throws in
            for i in 0..<6 { _ = try context.insert("Post", ["title": "p\(i)", "body": i < 3 ? "draft" : "final", "views": i]) }
            try context.save()
            try controller.performFetch()
        }
        let before = context.performAndWait { controller.snapshot }
        var update = BatchUpdateRequest(entityName: "Post")
        update.predicate = try QueryPredicate(format: "views >= 2")
        update.propertiesToUpdate = ["body": "archived"]
        update.resultType = .objectIDs
        let batchContext = stack.newContext()
        let result = try batchContext.performAndWait { try batchContext.execute(update) }
        #expect(result.objectIDs.count == 4)
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: SaveNotification(updatedObjectIDs: Set(result.objectIDs)), into: [context])
        try context.performAndWait { () throws in
            let batch = try #require(recorder.take().first)
            #expect(batch.sectionChanges.map(\.type) == [.delete, .insert])
            #expect(batch.objectChanges.filter { $0.type == .move }.count == 4)
            #expect(ResultsRecorder.same(ResultsRecorder.apply(batch, to: before), try Self.refetch(context)))
            #expect(controller.sections?.map(\.name) == ["archived", "draft"])
        }
    }

    @Test("sections by a to-one key path follow a rename saved in another context")
    func sectionsThroughRelationship() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        context.automaticallyMergesChangesFromParent = true
        let recorder = ResultsRecorder()
        var request = FetchRequest<ManagedObject>(entityName: "Post")
        request.sortDescriptors = [FetchSortDescriptor("author.name"), FetchSortDescriptor("title")]
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "author.name")
        controller.delegate = recorder
        let adaID = try context.performAndWait { () throws -> ManagedObjectID in
            let ada = try context.insert("Person", ["name": "Ada"])
            let grace = try context.insert("Person", ["name": "Grace"])
            for (title, author) in [("a", ada), ("b", grace), ("c", ada)] { _ = try context.insert("Post", ["title": title, "author": author]) }
            try context.save()
            try controller.performFetch()
            #expect(controller.sections?.map(\.name) == ["Ada", "Grace"])
            #expect(controller.sectionIndexTitles == ["A", "G"])
            return ada.objectID
        }
        let other = stack.newContext()
        try other.performAndWait { () throws in
            try other.existingObject(with: adaID).setValidatedValue("Lovelace", forKey: "name")
            try other.save()
        }
        context.performAndWait {
            let batch = recorder.take().first
            #expect(batch?.sectionChanges.map(\.type) == [.delete, .insert])
            #expect(batch?.objectChanges.map(\.type) == [.move, .move])
            #expect(controller.sections?.map(\.name) == ["Grace", "Lovelace"])
            #expect(controller.sections?.last?.objects.map { $0.value(forKey: "title") as? String } == ["a", "c"])
        }
    }

    @Test("typed results from a #Predicate request; a request without sort descriptors is refused")
    func typedResults() throws {
        let stack = try TestStack(model: try SwiftPredicateTests.model())
        let context = stack.newContext()
        let recorder = TypedRecorder()
        var request = try FetchRequest<Article>(entityName: "Article", predicate: #Predicate<Article> { $0.views >= 10 })
        let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: context)
        #expect(throws: NimbusError.self) { try context.performAndWait { try controller.performFetch() } }
        request.sortDescriptors = [FetchSortDescriptor("views", ascending: false)]
        let typed = FetchedResultsController(fetchRequest: request, managedObjectContext: context, sectionNameKeyPath: "published")
        typed.delegate = recorder
        try context.performAndWait { () throws in
            for views in [5, 10, 20] { _ = try context.insert("Article", ["title": "a\(views)", "views": views]) }
            try context.save()
            try typed.performFetch()
            let articles: [Article] = try #require(typed.fetchedObjects)
            #expect(articles.map(\.views) == [20, 10])
            #expect(typed.sections?.map(\.name) == ["0"])
            _ = try context.insert("Article", ["title": "late", "views": 15])
            try context.processPendingChanges()
            #expect(recorder.inserted.map(\.title) == ["late"])
            #expect(recorder.inserted.first.flatMap(typed.indexPath(forObject:)) == ResultsIndexPath(item: 1, section: 0))
        }
    }

    @Test("a nested context's save reaches a controller of its parent before anything is written")
    func nestedContextSave() throws {
        let stack = try TestStack()
        let parent = stack.newContext()
        let recorder = ResultsRecorder()
        let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: parent, sectionNameKeyPath: "body")
        controller.delegate = recorder
        try parent.performAndWait { () throws in
            _ = try parent.insert("Post", ["title": "a", "body": "x", "views": 1])
            try parent.save()
            try controller.performFetch()
        }
        let before = parent.performAndWait { controller.snapshot }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        try child.performAndWait { () throws in
            _ = try child.insert("Post", ["title": "b", "body": "x", "views": 9])
            try child.save()
        }
        try parent.performAndWait { () throws in
            let batch = try #require(recorder.take().first)
            #expect(batch.objectChanges.map(\.type) == [.insert])
            #expect(batch.objectChanges.first?.newIndexPath == ResultsIndexPath(item: 0, section: 0))
            #expect(ResultsRecorder.same(ResultsRecorder.apply(batch, to: before), try Self.refetch(parent)))
            #expect(parent.hasChanges)
        }
    }

    @Test("differences arrive as an async sequence of IDs, with permanent IDs once saved")
    func asyncDifferences() async throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: context, sectionNameKeyPath: "body")
        try context.performAndWait { try controller.performFetch() }
        var iterator = controller.differences.makeAsyncIterator()
        let objectID = try context.performAndWait { () throws -> ManagedObjectID in
            let post = try context.insert("Post", ["title": "a", "body": "x"])
            try context.processPendingChanges()
            return post.objectID
        }
        let pending = try #require(await iterator.next())
        #expect(pending.sectionChanges == [FetchedResultsSectionChange(type: .insert, name: "x", sectionIndex: 0)])
        #expect(pending.objectChanges == [FetchedResultsObjectChange(type: .insert, item: objectID, indexPath: nil, newIndexPath: ResultsIndexPath(item: 0, section: 0))])
        #expect(objectID.isTemporaryID)
        try context.performAndWait { try context.save() }
        let saved = try #require(await iterator.next())
        #expect(saved.objectChanges.isEmpty)
        let permanent = try #require(saved.sections.first?.objectIDs.first)
        #expect(!permanent.isTemporaryID)
    }

    @Test("random inserts, deletes and updates across saves and merges always match a re-fetch", arguments: Array(1...6) as [UInt64])
    func randomInterleavedChanges(seed: UInt64) throws {
        let stack = try TestStack()
        let main = stack.newContext()
        let other = stack.newContext()
        main.automaticallyMergesChangesFromParent = true
        let recorder = ResultsRecorder()
        let controller = FetchedResultsController(fetchRequest: Self.request(), managedObjectContext: main, sectionNameKeyPath: "body")
        controller.delegate = recorder
        try main.performAndWait { try controller.performFetch() }
        var random = SeededGenerator(seed: seed)
        let bodies: [String?] = ["alpha", "beta", "gamma", "delta", nil]
        var serial = 0
        var reportedChanges = 0

        /// Checks the batches since `before` turn it into a re-fetch, and that each object
        /// whose values changed was reported.
        func check(from before: [ResultsRecorder.Section], changed: Set<ManagedObjectID>, step: Int, useOther: Bool) throws {
            try main.performAndWait { () throws in
                var applied = before
                let batches = recorder.take()
                for batch in batches { applied = ResultsRecorder.apply(batch, to: applied) }
                let expected = try Self.refetch(main)
                #expect(ResultsRecorder.same(applied, expected), "seed \(seed) step \(step): applied \(ResultsRecorder.describe(applied)) expected \(ResultsRecorder.describe(expected))")
                #expect(ResultsRecorder.same(controller.snapshot, expected), "seed \(seed) step \(step): controller out of date")
                let reported = Set(batches.flatMap(\.objectChanges).filter { $0.type == .update || $0.type == .move }.map { $0.item.objectID })
                let remaining = Set(expected.flatMap(\.objects).map(\.objectID))
                #expect(changed.intersection(remaining).isSubset(of: reported), "seed \(seed) step \(step) other \(useOther): an update went unreported \(batches.flatMap(\.objectChanges).map { "\($0.type) \($0.item.objectID.primaryKey) \($0.indexPath as Any) \($0.newIndexPath as Any)" })")
                reportedChanges += batches.map(\.objectChanges.count).reduce(0, +)
            }
        }

        for step in 0..<60 {
            let before = main.performAndWait { controller.snapshot }
            let useOther = step > 3 && Int.random(in: 0..<3, using: &random) == 0
            let context = useOther ? other : main
            var changed: Set<ManagedObjectID> = []
            try context.performAndWait { () throws in
                if useOther { other.reset() }
                let existing = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post"))
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let choice = Int.random(in: 0..<10, using: &random)
                    switch existing.isEmpty ? 0 : choice {
                    case 0..<4:
                        serial += 1
                        _ = try context.insert("Post", ["title": "p\(serial)", "body": bodies.randomElement(using: &random)! ?? NSNull(),
                                                        "views": Int.random(in: 0..<20, using: &random)])
                    case 4..<6:
                        context.delete(existing.randomElement(using: &random)!)
                    default:
                        let post = existing.randomElement(using: &random)!
                        // Once per step, so that a second change never undoes the first.
                        guard !post.isDeleted, changed.insert(post.objectID).inserted else { continue }
                        if Bool.random(using: &random) {
                            post.setValue((post.value(forKey: "views") as! Int64) + Int64.random(in: 1..<10, using: &random), forKey: "views")
                        } else {
                            let body = post.value(forKey: "body") as? String
                            post.setValue(bodies.filter { $0 != body }.randomElement(using: &random)! ?? NSNull(), forKey: "body")
                        }
                    }
                }
                if !useOther { try context.processPendingChanges() }
            }
            if !useOther {
                try check(from: before, changed: changed, step: step, useOther: false)
            }
            let afterPending = main.performAndWait { controller.snapshot }
            try context.performAndWait { try context.save() }
            main.performAndWait {}  // let the automatic merge run
            try check(from: useOther ? before : afterPending, changed: useOther ? changed : [], step: step, useOther: useOther)
        }
        #expect(reportedChanges > 60)
    }
}

/// A delegate of a results controller of a typed class.
final class TypedRecorder: FetchedResultsControllerDelegate {
    var inserted: [Article] = []

    func controller(_ controller: FetchedResultsController<Article>, didChange object: Article, at indexPath: ResultsIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: ResultsIndexPath?) {
        if type == .insert { inserted.append(object) }
    }
}
