import Foundation
import NimbusData
import Testing

/// Runs the sample's data code over a real SQLite file.
@Suite("The TripsData sample")
struct TripsDataTests {
    func storeURL() -> URL {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("TripsData-\(UUID().uuidString)", isDirectory: true)
            .appendingPathComponent("Trips.store")
    }

    @Test("the sample data loads through the main context and reads back from the file")
    @MainActor
    func sampleData() throws {
        let url = storeURL()
        let container = try DataContainer.makeContainer(url: url)
        try DataContainer.loadSampleData(into: container)
        try DataContainer.loadSampleData(into: container)

        let reopened = try DataContainer.makeContainer(url: url)
        let queries = TripQueries(modelContext: ModelContext(reopened))
        let upcoming = try queries.upcomingTrips(after: SampleData.origin)
        #expect(upcoming.map(\.name) == ["Paris Weekend", "Tokyo Business", "Alps Hike"])
        let paris = try #require(upcoming.first)
        #expect(paris.livingAccommodation?.placeName == "Hôtel du Louvre")
        #expect(paris.livingAccommodation?.amenities == ["wifi", "breakfast"])
        #expect(Set(paris.bucketList.map(\.title)) == ["Louvre", "Seine cruise"])
        #expect(paris.bucketList.first { $0.title == "Louvre" }?.estimatedCost == BucketListItem.Cost(amount: 22, currency: "EUR"))
        #expect(try queries.highPriorityItemCount() == 1)
        #expect(try queries.search("Tokyo", from: SampleData.origin, to: SampleData.origin + 100 * SampleData.day).map(\.name) == ["Tokyo Business"])
    }

    @Test("editing, deleting with cascade, and history of deletions")
    func editing() throws {
        let container = try DataContainer.makeContainer(url: storeURL())
        let context = ModelContext(container)
        for trip in SampleData.trips() { context.insert(trip) }
        try context.save()
        let queries = TripQueries(modelContext: context)
        let tokyo = try #require(try queries.upcomingTrips(after: SampleData.origin).first { $0.destination == "Tokyo" })
        try queries.addItem("Shibuya", to: tokyo)
        #expect(queries.unplannedItems(of: tokyo).count == 2)
        try queries.deleteTrip(tokyo)
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 2)
        try queries.deletePastTrips(before: SampleData.origin + 5 * SampleData.day)
        #expect(try context.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Alps Hike"])
        #expect(Set(try queries.deletedTripNames(since: nil)) == ["Tokyo Business", "Paris Weekend"])
    }
}
