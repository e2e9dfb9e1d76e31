import Foundation
import Nimbus
import NimbusCloud

/// A store opened for one command: its model (read from the file), coordinator and a
/// private-queue context.
struct StoreSession {
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore
    let context: ManagedObjectContext

    /// The device's container, when the path is a device folder (kept open with the session).
    let container: PersistentContainer?

    init(path: String, readOnly: Bool = false, author: String? = nil) throws {
        if DeviceFolder.isDevice(path) {
            // A device folder: objects go to the store of their entity's configuration, and
            // saves are recorded in history with the CLI's author, so that they export.
            let device = try DeviceFolder(path: path)
            let cloud = try device.openContainer()
            container = cloud
            model = device.model
            coordinator = cloud.persistentStoreCoordinator
            guard let first = coordinator.persistentStores.first(where: { $0.storeDescription.cloudContainerOptions != nil })
                    ?? coordinator.persistentStores.first else {
                throw CLIError("the device folder \(path) has no stores")
            }
            store = first
            context = cloud.newBackgroundContext()
            context.transactionAuthor = author ?? "nimbus-cli"
            return
        }
        container = nil
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
