import Foundation
import NimbusData
import Observation
import Testing

@Suite("Observable models")
struct ObservationTests {
    @Test("withObservationTracking fires when a tracked property is set")
    func localSet() throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        let trip = Trip(name: "Paris")
        context.insert(trip)
        let fired = Received()
        withObservationTracking { _ = trip.name } onChange: { fired.append("name") }
        trip.destination = "France"
        #expect(fired.values.isEmpty)
        trip.name = "Lyon"
        #expect(fired.values == ["name"])
    }

    @Test("withObservationTracking fires when another context's save is merged")
    func mergedChange() throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        context.insert(Trip(name: "Paris"))
        try context.save()
        let viewer = ModelContext(container)
        let trip = try #require(try viewer.fetch(FetchDescriptor<Trip>()).first)
        #expect(trip.name == "Paris")
        let fired = Received()
        withObservationTracking { _ = trip.name } onChange: { fired.append("name") }
        let editor = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
        editor.name = "Lyon"
        try context.save()
        // The merge was queued on the viewer's queue by the save; this waits for it.
        viewer.managedObjectContext.performAndWait {}
        #expect(fired.values == ["name"])
        #expect(trip.name == "Lyon")
    }

    @Test("FetchResults fetches again after saves and tells observers")
    func fetchResults() async throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let context = ModelContext(container)
        let results = try FetchResults(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), in: context)
        #expect(results.isEmpty)
        let fired = Received()
        withObservationTracking { _ = results.models } onChange: { fired.append("models") }
        let writer = ModelContext(container)
        writer.insert(Trip(name: "Oslo"))
        writer.insert(Trip(name: "Bern"))
        try writer.save()
        // The refresh was queued on the results' context by the save; this waits for it.
        context.managedObjectContext.performAndWait {}
        #expect(fired.values == ["models"])
        #expect(results.map(\.name) == ["Bern", "Oslo"])
    }
}
