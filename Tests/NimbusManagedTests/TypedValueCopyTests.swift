import Foundation
import Nimbus
import NimbusTesting
import Testing

// The copies a @Managed class keeps of its attributes (decision 0036): loaded when values
// come from the store, never read once values changed.

@Managed final class Reading: ManagedObject {
    var text: String?
    var label: String = ""
    var count: Int64 = 0
    var small: Int16 = 0
    var medium: Int32?
    var number: Int = 0
    var ratio: Double?
    var fraction: Float = 0
    var flag: Bool = false
    var maybe: Bool?
    var amount: Decimal?
    var when: Date?
    var blob: Data?
    var identifier: UUID?
    var link: URL?
    var shelf: Shelf?
}

@Managed final class Shelf: ManagedObject {
    var name: String?
    @Relationship(inverse: \Reading.shelf) var readings: Set<Reading>
}

@Suite("@Managed copies of attribute values")
struct TypedValueCopyTests {
    struct Stack {
        let folder: TemporaryDirectory
        let coordinator: PersistentStoreCoordinator

        init() throws {
            folder = try TemporaryDirectory()
            coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(Reading.self, Shelf.self))
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Readings.sqlite")))
        }

        func context() -> ManagedObjectContext {
            ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        }
    }

    /// Every typed accessor agrees with the by-name read of the object's storage.
    func expectAccessorsMatchStorage(_ r: Reading, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.text == r.managedValue(forKey: "text") as String?, sourceLocation: sourceLocation)
        #expect(r.label == r.managedValue(forKey: "label") as String, sourceLocation: sourceLocation)
        #expect(r.count == r.managedValue(forKey: "count") as Int64, sourceLocation: sourceLocation)
        #expect(r.small == r.managedValue(forKey: "small") as Int16, sourceLocation: sourceLocation)
        #expect(r.medium == r.managedValue(forKey: "medium") as Int32?, sourceLocation: sourceLocation)
        #expect(r.number == r.managedValue(forKey: "number") as Int, sourceLocation: sourceLocation)
        #expect(r.ratio == r.managedValue(forKey: "ratio") as Double?, sourceLocation: sourceLocation)
        #expect(r.fraction == r.managedValue(forKey: "fraction") as Float, sourceLocation: sourceLocation)
        #expect(r.flag == r.managedValue(forKey: "flag") as Bool, sourceLocation: sourceLocation)
        #expect(r.maybe == r.managedValue(forKey: "maybe") as Bool?, sourceLocation: sourceLocation)
        #expect(r.amount == r.managedValue(forKey: "amount") as Decimal?, sourceLocation: sourceLocation)
        #expect(r.when == r.managedValue(forKey: "when") as Date?, sourceLocation: sourceLocation)
        #expect(r.blob == r.managedValue(forKey: "blob") as Data?, sourceLocation: sourceLocation)
        #expect(r.identifier == r.managedValue(forKey: "identifier") as UUID?, sourceLocation: sourceLocation)
        #expect(r.link == r.managedValue(forKey: "link") as URL?, sourceLocation: sourceLocation)
    }

    /// Saves one full reading and one with every optional attribute nil; returns their IDs.
    func seed(_ context: ManagedObjectContext) throws -> (full: ManagedObjectID, empty: ManagedObjectID) {
        try context.performAndWait { () throws in
            let full = Reading(context: context)
            full.text = "A reading"
            full.label = "label"
            full.count = 1 << 40
            full.small = -7
            full.medium = 70_000
            full.number = 42
            full.ratio = 0.25
            full.fraction = 1.5
            full.flag = true
            full.maybe = false
            full.amount = Decimal(string: "12.34")
            full.when = Date(timeIntervalSinceReferenceDate: 700_000_000)
            full.blob = Data([1, 2, 3])
            full.identifier = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
            full.link = URL(string: "https://example.com/a")
            full.shelf = Shelf(context: context)
            let empty = Reading(context: context)
            try context.save()
            return (full.objectID, empty.objectID)
        }
    }

    func fetchAll(_ context: ManagedObjectContext, asFaults: Bool = false) throws -> [Reading] {
        var request = Reading.fetchRequest()
        request.returnsObjectsAsFaults = asFaults
        request.sortDescriptors = [FetchSortDescriptor("count", ascending: false)]
        return try context.fetch(request)
    }

    @Test("a fetch loads the copies; every accessor reads the stored value, nil and defaults included")
    func fetchLoadsCopies() throws {
        let stack = try Stack()
        _ = try seed(stack.context())
        let context = stack.context()
        try context.performAndWait { () throws in
            let readings = try fetchAll(context)
            #expect(readings.count == 2)
            for reading in readings {
                #expect(reading._typedValuesReadable)
                expectAccessorsMatchStorage(reading)
            }
            #expect(readings[0].text == "A reading" && readings[0].count == 1 << 40 && readings[0].amount == Decimal(string: "12.34"))
            #expect(readings[1].text == nil && readings[1].label == "" && readings[1].count == 0 && readings[1].maybe == nil)
            #expect(readings[0].shelf != nil && readings[1].shelf == nil, "relationships read the storage")
        }
    }

    @Test("a fault loads the copies when it fires, also when an accessor fires it")
    func faultsLoadCopies() throws {
        let stack = try Stack()
        _ = try seed(stack.context())
        let context = stack.context()
        try context.performAndWait { () throws in
            let readings = try fetchAll(context, asFaults: true)
            #expect(readings.allSatisfy { $0.isFault && !$0._typedValuesReadable })
            #expect(readings[0].text == "A reading")
            #expect(readings[0]._typedValuesReadable)
            expectAccessorsMatchStorage(readings[0])
            context.refresh(readings[0], mergeChanges: false)
            #expect(!readings[0]._typedValuesReadable, "a fault has no copies")
            #expect(readings[0].count == 1 << 40)
            #expect(readings[0]._typedValuesReadable)
        }
    }

    @Test("every change to the values makes the accessors read them: sets, rollback, refresh, undo, redo")
    func changesAreSeen() throws {
        let stack = try Stack()
        _ = try seed(stack.context())
        let context = stack.context()
        try context.performAndWait { () throws in
            let reading = try fetchAll(context)[0]
            #expect(reading._typedValuesReadable)

            reading.setValue("by key", forKey: "text")
            #expect(!reading._typedValuesReadable)
            #expect(reading.text == "by key")
            reading.count = 5
            #expect(reading.count == 5 && reading.text == "by key")
            try reading.setPrimitiveValue(nil, forKey: "ratio")
            #expect(reading.ratio == nil)
            expectAccessorsMatchStorage(reading)

            context.rollback()
            #expect(reading.text == "A reading" && reading.count == 1 << 40 && reading.ratio == 0.25)
            expectAccessorsMatchStorage(reading)

            reading.text = "unsaved"
            context.refresh(reading, mergeChanges: false)
            #expect(reading.text == "A reading")

            context.undoManager = ContextUndoManager()
            reading.label = "changed"
            try context.processPendingChanges()
            #expect(reading.label == "changed")
            context.undoManager?.undo()
            #expect(reading.label == "label")
            context.undoManager?.redo()
            #expect(reading.label == "changed")
            expectAccessorsMatchStorage(reading)
        }
    }

    @Test("a save merged from another context replaces what the copies held")
    func mergedSavesAreSeen() throws {
        let stack = try Stack()
        let ids = try seed(stack.context())
        let reader = stack.context()
        let writer = stack.context()
        let reading = try reader.performAndWait { () throws in
            let reading = try fetchAll(reader)[0]
            #expect(reading.objectID == ids.full && reading._typedValuesReadable)
            return reading
        }
        final class Saved: @unchecked Sendable { var note: Notification? }
        let saved = Saved()
        let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil) { note in
            saved.note = note
        }
        defer { NotificationCenter.default.removeObserver(token) }
        try writer.performAndWait { () throws in
            let other = try writer.existingObject(with: ids.full) as! Reading
            other.text = "from the writer"
            other.when = nil
            try writer.save()
        }
        let note = try #require(saved.note)
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: note)
            #expect(reading.text == "from the writer" && reading.when == nil)
            expectAccessorsMatchStorage(reading)
        }
    }

    @Test("inherited and own attributes of a class hierarchy both have copies")
    func hierarchy() throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(Media.self, Photo.self, Video.self, Clip.self, Album.self))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Media.sqlite")))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try writer.performAndWait { () throws in
            let context = writer
            let photo = Photo(context: context)
            photo.caption = "sunset"
            photo.aperture = 4
            let clip = Clip(context: context)
            clip.caption = "intro"
            clip.seconds = 12
            clip.source = "camera"
            try context.save()
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            var photos = Photo.fetchRequest()
            photos.returnsObjectsAsFaults = false
            let photo = try #require(try context.fetch(photos).first)
            #expect(photo._typedValuesReadable)
            #expect(photo.caption == "sunset" && photo.aperture == 4 && photo.width == 0)
            var clips = Clip.fetchRequest()
            clips.returnsObjectsAsFaults = false
            let clip = try #require(try context.fetch(clips).first)
            #expect(clip._typedValuesReadable)
            #expect(clip.caption == "intro" && clip.seconds == 12 && clip.source == "camera")
        }
    }

    @Test("turning an object into a fault lets go of what its copies held")
    func faultingReleasesCopies() throws {
        final class Freed: @unchecked Sendable { var count = 0 }
        let freed = Freed()
        let stack = try Stack()
        let context = stack.context()
        try context.performAndWait { () throws in
            let reading = Reading(context: context)
            do {
                let bytes = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 8)
                bytes.initializeMemory(as: UInt8.self, repeating: 7, count: 4096)
                reading.blob = Data(bytesNoCopy: bytes, count: 4096, deallocator: .custom { pointer, _ in
                    pointer.deallocate()
                    freed.count += 1
                })
            }
            try context.save()
            #expect(reading.blob?.count == 4096)
            #expect(reading._typedValuesReadable, "the read made the copies, which now hold the blob")
            context.refresh(reading, mergeChanges: false)
            #expect(freed.count == 1, "the fault still held the blob")
            #expect(reading.blob == Data(repeating: 7, count: 4096), "the blob reads back from the store")
        }
    }
}
