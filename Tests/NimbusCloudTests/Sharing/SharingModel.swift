import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire

/// Lists of items (what the sharing tests share), and notes and tags that stay private.
enum SharingModel {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("List") {
                AttributeDescription("name", .string)
                RelationshipDescription("items", to: "Item", inverse: "list", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Item") {
                AttributeDescription("title", .string)
                RelationshipDescription("list", to: "List", inverse: "items")
                RelationshipDescription("tag", to: "Tag", inverse: "items")
            }
            EntityDescription("Tag") {
                AttributeDescription("name", .string)
                RelationshipDescription("items", to: "Item", inverse: "tag", toMany: true)
            }
            EntityDescription("Note") { AttributeDescription("text", .string) }
        }
    }

    /// A device of a user: a container with a private and a shared store.
    final class Device: @unchecked Sendable {
        let container: CloudContainer
        let folder: TemporaryDirectory
        var privateStore: PersistentStore { store(.private) }
        var sharedStore: PersistentStore { store(.shared) }

        convenience init(_ server: SyncServer, token: String) throws {
            try self.init(url: server.url, token: token)
        }

        /// A device; with `folder`, the same files as another device opened again (an app relaunched).
        init(url: URL, token: String, folder: TemporaryDirectory? = nil) throws {
            let directory = try folder ?? TemporaryDirectory()
            self.folder = directory
            container = CloudContainer(name: "lists", managedObjectModel: try SharingModel.model())
            container.automaticallySyncs = false
            container.persistentStoreDescriptions = [DatabaseScope.private, .shared].map { scope in
                var description = PersistentStoreDescription(url: directory.url.appendingPathComponent("\(scope.rawValue).sqlite"))
                description.cloudContainerOptions = CloudContainerOptions(serverURL: url, containerIdentifier: "lists",
                                                                          databaseScope: scope, token: token)
                return description
            }
            try container.loadPersistentStores()
        }

        func store(_ scope: DatabaseScope) -> PersistentStore { container.mirroredStore(for: scope)! }

        /// Inserts a list with items and saves.
        @discardableResult
        func makeList(_ name: String, items: [String]) async throws -> ManagedObjectID {
            let context = container.newBackgroundContext()
            return try await context.perform {
                let list = try context.insertNewObject(forEntityName: "List")
                list.setValue(name, forKey: "name")
                for title in items {
                    let item = try context.insertNewObject(forEntityName: "Item")
                    item.setValue(title, forKey: "title")
                    item.setValue(list, forKey: "list")
                }
                try context.save()
                return list.objectID
            }
        }

        /// Titles of the items of the list named `name` (sorted), in every store; `nil` when
        /// there is no such list.
        func items(of name: String) async throws -> [String]? {
            let context = container.newBackgroundContext()
            return try await context.perform {
                var request = FetchRequest<ManagedObject>(entityName: "List")
                request.predicate = try QueryPredicate(format: "name == %@", argumentArray: [name])
                let lists = try context.fetch(request)
                guard !lists.isEmpty else { return nil }
                return lists.flatMap { ($0.value(forKey: "items") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "title") as? String } }.sorted()
            }
        }

        func count(_ entity: String) async throws -> Int {
            let context = container.newBackgroundContext()
            return try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
        }

        /// The object of the list named `name`.
        func list(_ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
            var request = FetchRequest<ManagedObject>(entityName: "List")
            request.predicate = try QueryPredicate(format: "name == %@", argumentArray: [name])
            guard let list = try context.fetch(request).first else { throw TestFailure("no list \(name)") }
            return list
        }
    }
}
