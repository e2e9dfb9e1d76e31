import Foundation
import Testing
import Nimbus
import NimbusTesting

/// Counts its siblings when it is fetched: a fetch inside `awakeFromFetch`.
final class CountingNote: ManagedObject {
    nonisolated(unsafe) static var counted: [Int] = []

    override func awakeFromFetch() {
        guard let context = managedObjectContext else { return }
        let count = (try? context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))) ?? -1
        Self.counted.append(count)
    }
}

@Suite("awakeFromFetch", .serialized)
struct AwakeFromFetchTests {
    @Test("awakeFromFetch runs once per loaded object, after the fetch's read, and may fetch itself")
    func awakeFromFetchMayFetch() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note", class: CountingNote.self) { AttributeDescription("text", .string) }
        }
        let directory = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: directory.url.appendingPathComponent("notes.sqlite")))
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try writer.performAndWait { () throws in
            for index in 0..<3 { try writer.insertNewObject(forEntityName: "Note").setValue("note \(index)", forKey: "text") }
            try writer.save()
        }
        CountingNote.counted = []
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let notes = try reader.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Note")
            request.returnsObjectsAsFaults = false
            return try reader.fetch(request)
        }
        #expect(notes.count == 3)
        #expect(notes.allSatisfy { $0 is CountingNote })
        #expect(CountingNote.counted == [3, 3, 3])
    }
}
