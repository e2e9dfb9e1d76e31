import Foundation
import NimbusData

/// A fresh folder under the temporary directory, for real SQLite store files.
func temporaryStoreURL(_ name: String = "Trips.store") -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("NimbusDataTests-\(UUID().uuidString)", isDirectory: true)
    try! FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name)
}

func makeTripsContainer(at url: URL) throws -> ModelContainer {
    try ModelContainer(for: Trip.self, BucketListItem.self, LivingAccommodation.self,
                       configurations: ModelConfiguration(url: url, cloudKitDatabase: .none))
}
