import Foundation
import NimbusData
import Testing

@Suite("History and autosave")
struct HistoryAndAutosaveTests {
    @Test("fetchHistory lists inserts, updates with their attributes, and deletes with kept values; tokens filter; deleteHistory trims")
    func history() throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        let trip = Trip(name: "Paris")
        context.insert(trip)
        try context.save()
        let first = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(first.count == 1)
        let token = try #require(first.last?.token)
        trip.destination = "France"
        try context.save()
        let item = BucketListItem(title: "Louvre")
        context.insert(item)
        try context.save()
        context.delete(item)
        try context.save()

        let newer = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(newer.count == 3)
        let changes = newer.flatMap(\.changes)
        let updates = changes.compactMap { change -> DefaultHistoryUpdate<Trip>? in
            if case let .update(update as DefaultHistoryUpdate<Trip>) = change { return update }
            return nil
        }
        #expect(updates.count == 1)
        #expect(updates.first?.updatedAttributes.contains(\Trip.destination) == true)
        #expect(updates.first?.updatedAttributes.contains(\Trip.name) == false)
        let deletes = changes.compactMap { change -> DefaultHistoryDelete<BucketListItem>? in
            if case let .delete(deletion as DefaultHistoryDelete<BucketListItem>) = change { return deletion }
            return nil
        }
        #expect(deletes.count == 1)
        #expect(deletes.first?.tombstone[\.code] as? UUID == item.code)

        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= token }))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 3)
        let last = try #require(newer.last?.token)
        #expect(throws: SwiftDataError.self) {
            try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token == last }))
        }
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 3)
    }

    @Test("the main context saves by itself after a change")
    @MainActor
    func autosave() async throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = container.mainContext
        #expect(context.autosaveEnabled)
        context.insert(Trip(name: "Auto"))
        #expect(context.hasChanges)
        for _ in 0..<1000 where context.hasChanges { await Task.yield() }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
    }
}
