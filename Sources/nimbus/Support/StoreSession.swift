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

    /// - Parameter modelPath: the model to open the store with (an .xcdatamodeld, .xcdatamodel
    ///   or JSON model), for a store whose model cannot be read from the file itself: one
    ///   Apple's Core Data wrote. Nil reads the model the store keeps.
    init(path: String, readOnly: Bool = false, author: String? = nil, modelPath: String? = nil) throws {
        if DeviceFolder.isDevice(path) {
            // A device folder: objects go to the store of their entity's configuration, and
            // saves are recorded in history with the CLI's author, so that they export.
            let device = try DeviceFolder(path: path)
            try self.init(container: try device.openContainer(), model: device.model, author: author)
            return
        }
        try self.init(file: path, readOnly: readOnly, author: author, modelPath: modelPath)
    }

    /// A session on a store file, its model read from the file.
    private init(file path: String, readOnly: Bool, author: String?, modelPath: String?) throws {
        container = nil
        let url = URL(fileURLWithPath: path)
        if let modelPath {
            guard FileManager.default.fileExists(atPath: path) else { throw CLIError("no store at \(path)") }
            model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: modelPath))
        } else {
            model = try ManagedObjectModel.storedModel(at: url)
        }
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = readOnly
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        description.persistentHistoryTracking = metadata["NSPersistentHistoryTrackingKey"] as? Bool == true
        store = try coordinator.addPersistentStore(with: description)
        context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        context.transactionAuthor = author ?? "nimbus-cli"
    }

    /// A session on a device's open container: fetches see every store (private and
    /// shared), new objects go to their entity's default store.
    init(container cloud: PersistentContainer, model: ManagedObjectModel, author: String? = nil) throws {
        container = cloud
        self.model = model
        coordinator = cloud.persistentStoreCoordinator
        guard let first = coordinator.persistentStores.first(where: { $0.storeDescription.cloudContainerOptions != nil })
                ?? coordinator.persistentStores.first else {
            throw CLIError("the device folder has no stores")
        }
        store = first
        context = cloud.newBackgroundContext()
        context.transactionAuthor = author ?? "nimbus-cli"
    }

    /// Parses a predicate given on the command line. Objects are named by URI: as `%@`
    /// arguments (`--arg uri:x-coredata://…`), or in the format as
    /// `CAST("x-coredata://…", "NSManagedObjectID")`.
    func predicate(_ format: String?, arguments: [String] = []) throws -> QueryPredicate? {
        guard let format else {
            guard arguments.isEmpty else { throw CLIError("--arg is given without --predicate") }
            return nil
        }
        return try QueryPredicate(format: format, argumentArray: try arguments.map(argument), coordinator: coordinator)
    }

    /// One `--arg TYPE:VALUE`: `uri:` (an object), `string:`, `int:`, `double:`, `bool:`,
    /// `date:` (ISO 8601), `uuid:`, `nil`.
    func argument(_ text: String) throws -> Any? {
        if text == "nil" { return nil }
        guard let colon = text.firstIndex(of: ":") else {
            throw CLIError("--arg \(text): expected TYPE:VALUE, with TYPE one of uri, string, int, double, bool, date, uuid (or nil)")
        }
        let type = String(text[..<colon]), value = String(text[text.index(after: colon)...])
        func bad() -> CLIError { CLIError("--arg \(text): \"\(value)\" is not a \(type)") }
        switch type {
        case "uri":
            guard let url = URL(string: value), url.scheme == "x-coredata" else { throw bad() }
            guard let id = coordinator.managedObjectID(forURIRepresentation: url) else {
                throw CLIError("--arg \(text): no object of this store has that URI (its store identifier or entity is not this store's)")
            }
            return id
        case "string": return value
        case "int": guard let v = Int64(value) else { throw bad() }; return v
        case "double": guard let v = Double(value) else { throw bad() }; return v
        case "bool":
            switch value.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw bad()
            }
        case "date": guard let v = DateText.date(from: value) else { throw bad() }; return v
        case "uuid": guard let v = UUID(uuidString: value) else { throw bad() }; return v
        default:
            throw CLIError("--arg \(text): unknown type \(type); use uri, string, int, double, bool, date, uuid (or nil)")
        }
    }
}
