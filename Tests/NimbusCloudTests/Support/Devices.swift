import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting

/// The seeds' sample model for mirroring: posts with tags (many-to-many, tag names unique)
/// and attachments (one-to-many, cascade), and a local-only Location.
enum SyncModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Cloud": ["Post", "Tag", "Attachment"], "Local": ["Location"]]) {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("body", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
                RelationshipDescription("attachments", to: "Attachment", inverse: "post", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
            }
            EntityDescription("Attachment") {
                AttributeDescription("name", .string)
                AttributeDescription("data", .binaryData)
                RelationshipDescription("post", to: "Post", inverse: "attachments")
            }
            EntityDescription("Location") {
                AttributeDescription("latitude", .double, defaultValue: 0)
                AttributeDescription("longitude", .double, defaultValue: 0)
            }
        }
    }
}

/// A device: a cloud container over its own store files, synced by hand.
final class Device: @unchecked Sendable {
    let container: CloudContainer
    let folder: TemporaryDirectory

    /// The transport with faults on demand.
    private(set) var transport: FaultyTransport!

    /// - Parameters:
    ///   - serverURL: Where the device reaches the server (a proxy in front of it, say).
    ///   - idleTimeoutSeconds: The transport's idle timeout, when not the default.
    convenience init(server: SyncServer, token: String, model: ManagedObjectModel, name: String = "device", automatic: Bool = false,
                     folder: TemporaryDirectory? = nil, serverURL: URL? = nil, idleTimeoutSeconds: Int64? = nil) throws {
        try self.init(url: serverURL ?? server.url, token: token, model: model, name: name, automatic: automatic, folder: folder,
                      idleTimeoutSeconds: idleTimeoutSeconds)
    }

    /// A device of the server at `url`.
    init(url: URL, token: String, model: ManagedObjectModel, name: String = "device", automatic: Bool = false,
         folder: TemporaryDirectory? = nil, idleTimeoutSeconds: Int64? = nil) throws {
        self.folder = try folder ?? TemporaryDirectory()
        container = CloudContainer(name: name, managedObjectModel: model)
        container.automaticallySyncs = automatic
        let box = TransportBox()
        box.idleTimeoutSeconds = idleTimeoutSeconds
        container.makeTransport = { options in box.make(options) }
        defer { transport = box.transport }
        var cloud = PersistentStoreDescription(url: self.folder.url.appendingPathComponent("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        cloud.cloudContainerOptions = CloudContainerOptions(serverURL: url, containerIdentifier: "app", token: token)
        var local = PersistentStoreDescription(url: self.folder.url.appendingPathComponent("Local.sqlite"))
        local.configuration = "Local"
        container.persistentStoreDescriptions = [cloud, local]
        try container.loadPersistentStores()
    }

    private init(container: CloudContainer, folder: TemporaryDirectory) {
        self.container = container
        self.folder = folder
    }

    /// A device over a container made elsewhere (its transport has no faults to inject).
    static func wrapping(_ container: CloudContainer, folder: TemporaryDirectory) -> Device {
        Device(container: container, folder: folder)
    }

    /// Runs `block` on a new background context and saves.
    func edit(_ block: @escaping @Sendable (ManagedObjectContext) throws -> Void) async throws {
        let context = container.newBackgroundContext()
        try await context.perform {
            try block(context)
            try context.save()
        }
    }

    /// A server with `count` device tokens of one user, and a device (the sync model) on each.
    static func onOneServer(_ count: Int) async throws -> (SyncServer, [Device]) {
        let server = try await SyncServer(devices: count)
        let model = try SyncModel.make()
        do {
            return (server, try server.tokens.map { try Device(server: server, token: $0, model: model) })
        } catch {
            server.stop()
            throw error
        }
    }

    /// Saves a new tag (`Tag.name` is unique, so its record name comes from the name).
    func insertTag(_ name: String) async throws {
        try await edit { context in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            tag.setValue(name, forKey: "name")
        }
    }

    /// Deletes every tag and saves.
    func deleteAllTags() async throws {
        try await edit { context in
            for tag in try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) { context.delete(tag) }
        }
    }

    /// Fetches `entity` objects as dictionaries of their attribute values (and related names).
    func snapshot(_ entity: String, key: String) async throws -> [String: [String: String]] {
        let context = container.newBackgroundContext()
        return try await context.perform {
            var result: [String: [String: String]] = [:]
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity)) {
                var values: [String: String] = [:]
                for property in object.entity.properties {
                    let value = object.value(forKey: property.name)
                    switch value {
                    case let objects as Set<ManagedObject>:
                        values[property.name] = objects.map(Self.label).sorted().joined(separator: ",")
                    case let object as ManagedObject:
                        values[property.name] = Self.label(object)
                    case let data as Data: values[property.name] = "\(data.count) bytes"
                    case nil: values[property.name] = "nil"
                    default: values[property.name] = "\(value!)"
                    }
                }
                result[values[key] ?? "?"] = values
            }
            return result
        }
    }

    /// An object's title or name (asking only for a property its entity has: an unknown key
    /// traps in debug builds, as Core Data raises).
    static func label(_ object: ManagedObject) -> String {
        let key = ["title", "name"].first { object.entity.propertyIndexes[$0] != nil }
        return key.flatMap { object.value(forKey: $0) }.map { "\($0)" } ?? "?"
    }

    func fetchOneID(_ entity: String, _ format: String, _ arguments: Any...) throws -> ManagedObjectID? {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.predicate = try QueryPredicate(format: format, argumentArray: arguments)
        let context = container.newBackgroundContext()
        return try context.performAndWait { try context.fetch(request).first?.objectID }
    }
}

/// Keeps the transport a container made, so that a test can inject faults into it.
final class TransportBox: @unchecked Sendable {
    var transport: FaultyTransport?
    var idleTimeoutSeconds: Int64?
    func make(_ options: CloudContainerOptions) -> any CloudTransport {
        let transport = FaultyTransport(options: options, idleTimeoutSeconds: idleTimeoutSeconds)
        self.transport = transport
        return transport
    }
}
