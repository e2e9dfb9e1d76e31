import Foundation
import Nimbus

/// A store opened for one command: its model (read from the file), coordinator and a
/// private-queue context.
struct StoreSession {
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore
    let context: ManagedObjectContext

    init(path: String, readOnly: Bool = false, author: String? = nil) throws {
        let url = URL(fileURLWithPath: path)
        model = try ManagedObjectModel.storedModel(at: url)
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = readOnly
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        description.persistentHistoryTracking = metadata["NSPersistentHistoryTrackingKey"] as? Bool == true
        store = try coordinator.addPersistentStore(with: description)
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        context.transactionAuthor = author ?? "nimbus-cli"
    }

    /// Parses a predicate given on the command line.
    static func predicate(_ format: String?) throws -> QueryPredicate? {
        guard let format else { return nil }
        return try QueryPredicate(format: format)
    }
}
