import Foundation
import Nimbus

/// The Nimbus side: a `Post` entity in the store's own tables, created through the API.
enum NimbusStore {
    static let model: ManagedObjectModel = try! ManagedObjectModel {
        EntityDescription("Post") {
            AttributeDescription("title", .string)
            AttributeDescription("body", .string)
            AttributeDescription("views", .integer64)
            AttributeDescription("rating", .double)
            AttributeDescription("createdAt", .date)
            AttributeDescription("published", .boolean)
        }
    }

    /// A new coordinator on the file (WAL, synchronous=NORMAL: GRDB's `DatabasePool`) and a
    /// private-queue context on it. A new coordinator has a cold row cache.
    static func open(_ file: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: file))
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    /// Inserts posts with `insertNewObject(forEntityName:)` and `setValue(_:forKey:)`, then saves once.
    static func insert(_ posts: ArraySlice<PostValues>, into context: ManagedObjectContext) throws {
        try context.performAndWait { () throws in
            for post in posts {
                let object = try context.insertNewObject(forEntityName: "Post")
                object.setValue(post.title, forKey: "title")
                object.setValue(post.body, forKey: "body")
                object.setValue(post.views, forKey: "views")
                object.setValue(post.rating, forKey: "rating")
                object.setValue(post.createdAt, forKey: "createdAt")
                object.setValue(post.published, forKey: "published")
            }
            try context.save()
        }
    }

    /// Creates a store of `rows` posts, saved 50,000 at a time.
    static func fill(_ file: URL, rows: Int) throws {
        let posts = PostValues.sample(count: rows)
        for start in stride(from: 0, to: rows, by: 50_000) {
            let context = try open(file)
            try insert(posts[start..<min(start + 50_000, rows)], into: context)
        }
    }

    static func count(_ file: URL) throws -> Int {
        let context = try open(file)
        return try context.performAndWait { () throws in try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) }
    }
}

final class NimbusInsert: BenchmarkCase {
    let scenario = Scenario.insert
    let contender = Contender.nimbus
    let folder: ScratchFolder
    let posts: [PostValues]
    private var file: URL?
    private var context: ManagedObjectContext?

    init(folder: ScratchFolder, posts: [PostValues]) {
        self.folder = folder
        self.posts = posts
    }

    func prepare() throws {
        let file = folder.newFile("nimbus-insert")
        self.file = file
        context = try NimbusStore.open(file)
    }

    func run() throws {
        try NimbusStore.insert(posts[...], into: context!)
    }

    func verify() throws {
        context = nil
        let count = try NimbusStore.count(file!)
        guard count == posts.count else { throw BenchmarkCheckFailure("Nimbus inserted \(count) posts, not \(posts.count)") }
        folder.removeDatabase(at: file!)
    }
}

final class NimbusFetchMaterialized: BenchmarkCase {
    let scenario: Scenario
    let contender = Contender.nimbus
    let file: URL
    /// Whether the timed run also reads every title (by key, as Core Data code does).
    let readsTitles: Bool
    private var context: ManagedObjectContext?
    private var objects: [ManagedObject] = []
    private var titleBytes = 0

    init(file: URL, readsTitles: Bool) {
        self.file = file
        self.readsTitles = readsTitles
        scenario = readsTitles ? .fetchAndReadTitles : .fetchMaterialized
    }

    func prepare() throws {
        context = try NimbusStore.open(file)
    }

    func run() throws {
        let context = context!
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.returnsObjectsAsFaults = false
            objects = try context.fetch(request)
            if readsTitles { titleBytes = Self.titleBytes(objects) }
        }
    }

    static func titleBytes(_ objects: [ManagedObject]) -> Int {
        var bytes = 0
        for object in objects { bytes &+= (object.value(forKey: "title") as! String).utf8.count }
        return bytes
    }

    func verify() throws {
        // Every object came back loaded: no fault, and every title readable (untimed unless the
        // scenario reads titles).
        let (faults, bytes) = context!.performAndWait { (objects.filter(\.isFault).count, Self.titleBytes(objects)) }
        guard objects.count == scenario.rows, faults == 0, bytes > 0, !readsTitles || titleBytes == bytes else {
            throw BenchmarkCheckFailure("Nimbus fetched \(objects.count) posts (\(faults) faults, title bytes \(bytes))")
        }
        objects = []
        context = nil
    }
}

final class NimbusFetchFaults: BenchmarkCase {
    let scenario = Scenario.fetchFaults
    let contender = Contender.nimbus
    let file: URL
    private var context: ManagedObjectContext?
    private var objects: [ManagedObject] = []
    private var fired = 0

    init(file: URL) { self.file = file }

    func prepare() throws {
        context = try NimbusStore.open(file)
    }

    func run() throws {
        let context = context!
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.includesPropertyValues = false
            objects = try context.fetch(request)
            var fired = 0
            for index in stride(from: 0, to: objects.count, by: Scenario.fireStride) {
                if objects[index].value(forKey: "title") is String { fired += 1 }
            }
            self.fired = fired
        }
    }

    func verify() throws {
        let expected = scenario.rows / Scenario.fireStride
        let faults = context!.performAndWait { (objects[1].isFault, objects[0].isFault) }
        guard objects.count == scenario.rows, fired == expected, faults == (true, false) else {
            throw BenchmarkCheckFailure("Nimbus fetched \(objects.count) faults and fired \(fired), not \(expected)")
        }
        objects = []
        context = nil
    }
}
