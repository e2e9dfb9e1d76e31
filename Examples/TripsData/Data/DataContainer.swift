import Foundation
import NimbusData

/// The app's stack, as a SwiftData app builds it.
enum DataContainer {
    static let schema = Schema([
        Trip.self,
        BucketListItem.self,
        LivingAccommodation.self,
    ])

    static func makeContainer(url: URL? = nil, inMemory: Bool = false) throws -> ModelContainer {
        let configuration: ModelConfiguration
        if let url {
            configuration = ModelConfiguration(schema: schema, url: url, cloudKitDatabase: .none)
        } else {
            configuration = ModelConfiguration(schema: schema, isStoredInMemoryOnly: inMemory, cloudKitDatabase: .none)
        }
        return try ModelContainer(for: schema, configurations: [configuration])
    }

    @MainActor
    static func loadSampleData(into container: ModelContainer) throws {
        let context = container.mainContext
        var fetchDescriptor = FetchDescriptor<Trip>()
        fetchDescriptor.fetchLimit = 1
        guard try context.fetch(fetchDescriptor).isEmpty else { return }
        for trip in SampleData.trips() {
            context.insert(trip)
        }
        try context.save()
    }
}
