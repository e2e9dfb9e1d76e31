import Foundation
import NimbusData
import Testing

@ModelActor
actor TripImporter {
    func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
        let trips = names.map { Trip(name: $0) }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    func name(of id: PersistentIdentifier) -> String? {
        self[id, as: Trip.self]?.name
    }
}

@Suite("@ModelActor")
struct ModelActorTests {
    @Test("an actor with its own context imports models that other contexts then read")
    func importer() async throws {
        let container = try makeTripsContainer(at: temporaryStoreURL())
        let importer = TripImporter(modelContainer: container)
        let ids = try await importer.importTrips(["Oslo", "Bern"])
        #expect(ids.allSatisfy { !$0.isTemporary })
        #expect(await importer.name(of: ids[1]) == "Bern")
        let names = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Bern", "Oslo"])
    }
}
