import Crypto
import Foundation
import Synchronization
import Testing
@testable import Nimbus
import NimbusTesting

/// A store of the Notebook app taken from its first model version to its fifth in one go:
/// lightweight steps, a step through the app's Xcode mapping model with a custom policy,
/// and closures before and after stages, checked value by value.
@Suite("Staged migration")
struct StagedMigrationTests {
    static let thumbnail = Data((0..<300_000).map { UInt8($0 % 251) })
    static let created = Date(timeIntervalSinceReferenceDate: 700_000_000)

    /// Version 1 data: three folders (one empty), five notes, two tags, a 300 KB thumbnail.
    static func seed(_ url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(1))
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let work = try context.insert("Folder", ["name": "Work", "createdAt": created, "sortOrder": 1])
            _ = try context.insert("Folder", ["name": "Empty", "createdAt": created.addingTimeInterval(60)])
            let home = try context.insert("Folder", ["name": "Home", "createdAt": created.addingTimeInterval(120)])
            let tagWork = try context.insert("Tag", ["name": "work"])
            let errands = try context.insert("Tag", ["name": "errands"])
            let todo = try context.insert("Note", ["title": "todo list", "body": "buy milk", "pinned": true, "wordCount": 2, "folder": work])
            try todo.addObjects([tagWork, errands], toRelationship: "tags")
            _ = try context.insert("Note", ["title": "meeting", "thumbnail": thumbnail, "folder": work])
            _ = try context.insert("Note", ["title": "scratch", "body": "tmp", "folder": work])
            _ = try context.insert("Note", ["title": "recipe", "body": "DELETE ME", "folder": home])
            _ = try context.insert("Note", ["title": "plans", "body": "trip", "wordCount": 1, "folder": home])
            try context.save()
        }
        try coordinator.removePersistentStore(store)
    }

    static func plan(failingAt failing: Int? = nil) throws -> StagedMigrationPlan {
        try NotebookMigration.plan(fixtures: XcodeModelFixtures.directory, failingAt: failing)
    }

    static func hash(_ url: URL) throws -> Data { Data(SHA256.hash(data: try Data(contentsOf: url))) }

    /// Checks every value of a store migrated from ``seed(_:)`` to version 5.
    static func checkVersion5(_ url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(5))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let notebooks = try context.all("Notebook", sortedBy: "createdAt")
            #expect(notebooks.map { $0.value(forKey: "title") as? String } == ["Work", "Empty", "Home"], "Folder.name became Notebook.title")
            #expect(notebooks.map { $0.value(forKey: "createdAt") as? Date } == [Self.created, Self.created.addingTimeInterval(60), Self.created.addingTimeInterval(120)])
            #expect(notebooks.map { $0.value(forKey: "noteCount") as? Int32 } == [2, 0, 1], "computed by the last stage's didMigrate")

            let notes = try context.all("Note", sortedBy: "title")
            #expect(notes.map { $0.value(forKey: "title") as? String } == ["Meeting", "Plans", "TODO List"],
                    "scratch filtered out by the mapping, recipe dropped by the policy, titles capitalized, TODO by the policy")
            let (meeting, plans, todo) = (notes[0], notes[1], notes[2])
            #expect(todo.value(forKey: "text") as? String == "buy milk", "body renamed text in version 2")
            #expect(meeting.value(forKey: "text") as? String == "", "nil became the default when text turned required in version 4")
            #expect(plans.value(forKey: "text") as? String == "trip")
            #expect(notes.map { $0.value(forKey: "priority") as? Int16 } == [0, 1, 2], "policy function: pinned 2, starred 1")
            #expect(notes.map { $0.value(forKey: "schemaVersion") as? Int16 } == [3, 3, 3], "a constant expression")
            #expect(notes.map { $0.value(forKey: "wordCount") as? Double } == [0, 1, 2], "integer 32 → 64 → Double")
            #expect(notes.map { $0.value(forKey: "pinned") as? Bool } == [false, false, true])
            #expect(meeting.value(forKey: "thumbnail") as? Data == Self.thumbnail, "the external value came through every stage")
            #expect(todo.value(forKey: "thumbnail") == nil)
            func notebookTitles(_ note: ManagedObject) -> [String] {
                ((note.value(forKey: "notebooks") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "title") as? String }.sorted()
            }
            #expect(notes.map(notebookTitles) == [["Work"], ["Home"], ["Work"]], "to-one notebook became to-many notebooks")
            #expect(context.persistentStoreCoordinator.managedObjectModel.entitiesByName["Tag"] == nil)
        }
        let external = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().appendingPathComponent(".Notes_SUPPORT/_EXTERNAL_DATA").path)
        #expect(external.count == 1, "only the thumbnail's current file is kept: \(external)")
    }

    @Test("a store goes from version 1 to 5 through a mapping model and closures; every value is as the steps say")
    func acrossVersions() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Notes.sqlite")
        try Self.seed(url)
        let events = Mutex<[MigrationProgress]>([])
        let ran = try Self.plan().migrateStore(at: url) { progress in events.withLock { $0.append(progress) } }
        #expect(ran == ["1 → 2", "2 → 3", "3 → 4", "4 → 5"])
        let progress = events.withLock { $0 }
        #expect(progress.map(\.fractionCompleted) == progress.map(\.fractionCompleted).sorted(), "progress only moves forward")
        #expect(progress.last?.fractionCompleted == 1)
        #expect(Set(progress.map(\.stageLabel)) == ["1 → 2", "2 → 3", "3 → 4", "4 → 5"])
        #expect(!FileManager.default.fileExists(atPath: folder.file(".Notes.sqlite.migration").path))

        try Self.checkVersion5(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(5))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let notebooks = try context.all("Notebook", sortedBy: "createdAt")
            let plans = try #require(try context.all("Note").first { $0.value(forKey: "title") as? String == "Plans" })
            // The new many-to-many works both ways.
            try plans.addObjects([notebooks[0]], toRelationship: "notebooks")
            try context.save()
            #expect(((notebooks[0].value(forKey: "notes") as? Set<ManagedObject>) ?? []).count == 3)
        }
    }

    @Test("a plan on the store's description runs when the store is added")
    func planOnDescription() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Notes.sqlite")
        try Self.seed(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(5))
        var description = PersistentStoreDescription(url: url)
        description.stagedMigrationPlan = try Self.plan()
        let store = try coordinator.addPersistentStore(with: description)
        try coordinator.removePersistentStore(store)
        try Self.checkVersion5(url)
    }

    @Test("a stage that fails, at any stage, leaves the store byte for byte as it was; the next run starts clean", arguments: [1, 2, 4])
    func failureLeavesStore(_ stage: Int) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Notes.sqlite")
        try Self.seed(url)
        let before = try Self.hash(url)
        let supportBefore = try FileManager.default.contentsOfDirectory(atPath: folder.file(".Notes_SUPPORT/_EXTERNAL_DATA").path)
        let error = try #require(throws: NimbusError.self) { try Self.plan(failingAt: stage).migrateStore(at: url) }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("stage \"\(stage) → \(stage + 1)\" failed; the store at \(url.path) was not changed"), "\(error.message)")
        #expect(error.message.contains("refused on purpose"))
        #expect(try Self.hash(url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file(".Notes_SUPPORT/_EXTERNAL_DATA").path) == supportBefore)
        #expect(!FileManager.default.fileExists(atPath: folder.file(".Notes.sqlite.migration").path))
        // A crash leaves the working copy behind: the next run discards it and succeeds.
        try FileManager.default.createDirectory(at: folder.file(".Notes.sqlite.migration"), withIntermediateDirectories: true)
        try Data("half-written".utf8).write(to: folder.file(".Notes.sqlite.migration/Notes.sqlite"))
        #expect(try Self.plan().migrateStore(at: url).count == 4)
        #expect(try Self.plan().migrateStore(at: url).isEmpty, "a current store is left alone")
    }

    @Test("a store still open elsewhere, with changes in its WAL, is not swapped out from under it")
    func openElsewhere() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Notes.sqlite")
        try Self.seed(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try NotebookFixtures.version(1))
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            _ = try context.insert("Tag", ["name": "late"])
            try context.save()
        }
        let error = try #require(throws: NimbusError.self) { try Self.plan().migrateStore(at: url) }
        #expect(error.code == .migrationFailed && error.message.contains("is open elsewhere"), "\(error.message)")
        try context.performAndWait { () throws in
            #expect(try context.all("Tag").compactMap { $0.value(forKey: "name") as? String }.sorted() == ["errands", "late", "work"])
        }
        try coordinator.removePersistentStore(store)
        #expect(try Self.plan().migrateStore(at: url).count == 4, "closed, it migrates")
    }

    @Test("a plan refuses a store of another model, gaps between stages, and mappings it cannot run, changing nothing")
    func badInput() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Notes.sqlite")
        try Self.seed(url)
        let before = try Self.hash(url)
        let models = try (1...5).map(NotebookFixtures.version)
        #expect(throws: NimbusError.self) { try StagedMigrationPlan([.lightweight(from: models[0], to: models[1]), .lightweight(from: models[2], to: models[3])]) }
        let later = try StagedMigrationPlan([.lightweight(from: models[2], to: models[3])])
        let error = try #require(throws: NimbusError.self) { try later.migrateStore(at: url) }
        #expect(error.code == .migrationFailed && error.message.contains("none of the plan's models"), "\(error.message)")
        var mapping = try MappingModel(contentsOf: NotebookFixtures.mapping2to3)
        mapping.entityMappings[1].migrationPolicyName = "NotebookApp.MissingPolicy"
        let missing = try StagedMigrationPlan([.lightweight(from: models[0], to: models[1]), .custom(from: models[1], to: models[2], mapping: mapping)])
        let policyError = try #require(throws: NimbusError.self) { try missing.migrateStore(at: url) }
        #expect(policyError.message.contains("no migration policy is registered as NotebookApp.MissingPolicy"), "\(policyError.message)")
        #expect(try Self.hash(url) == before)
        #expect(throws: NimbusError.self) { try later.migrateStore(at: folder.file("Nothing.sqlite")) }
    }

    @Test("a plan from the model package places the mapping on its step; the preview lists each entity with row counts")
    func planFromPackage() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Notes.sqlite")
        try Self.seed(url)
        let plan = try StagedMigrationPlan(versionsOf: NotebookFixtures.package, mappings: [try MappingModel(contentsOf: NotebookFixtures.mapping2to3)])
        #expect(plan.stages.map(\.label) == ["Notebook → Notebook 2", "Notebook 2 → Notebook 3", "Notebook 3 → Notebook 4", "Notebook 4 → Notebook 5"])
        #expect(plan.stages.map { $0.mappingModel != nil } == [false, true, false, false])
        let preview = try plan.preview(storeAt: url)
        #expect(preview.count == 4)
        let first = preview[0].entities.map { "\($0.source ?? "-")→\($0.destination ?? "-") \($0.action) \($0.rows.map(String.init) ?? "?")" }
        #expect(first == ["Folder→Folder copy 3", "Note→Note transform 5", "Tag→Tag copy 2"])
        #expect(preview[0].entities[1].details.contains("renamed body → text"))
        #expect(preview[0].entities[1].details.contains("wordCount: integer32 → integer64"))
        #expect(preview[0].entities[1].details.contains("added starred = NO"))
        let mapped = preview[1].entities
        #expect(mapped.map(\.action) == ["transform", "transform", "remove"])
        #expect(mapped[1].rows == 5 && mapped[1].migratedRows == nil, "the filter is counted only on the store's own stage")
        #expect(mapped[1].details.contains("custom policy NotebookApp.NoteMigrationPolicy"))
        #expect(mapped[1].details.contains("title = FUNCTION($source.title, \"capitalizedString\")"))
        #expect(preview[2].entities.first { $0.destination == "Note" }?.details.contains("notebooks: to-one → to-many") == true)
        #expect(preview[2].entities.first { $0.destination == "Note" }?.rowsAreUpperBound == true, "the mapping's filter and policy may drop notes")
        #expect(preview[2].entities.first { $0.destination == "Notebook" }?.rowsAreUpperBound == false)
        #expect(preview[2].entities.first { $0.destination == "Note" }?.details.contains("renamed notebook → notebooks") == true)
    }
}
