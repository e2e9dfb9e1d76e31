import Foundation
import Nimbus
import NimbusCloud
import NimbusWire

/// `nimbus demo --sharing`: Ada shares a shopping list with Grace (read-write) and Alan
/// (read-only); each edits; Alan's edit is refused; Ada removes Alan and his copy goes.
struct DemoSharing {
    let folder: URL
    let server: URL
    /// A token per user: ada, grace, alan.
    let tokens: [String: String]
    let step: StepPrinter

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("List") {
                AttributeDescription("name", .string)
                RelationshipDescription("items", to: "Item", inverse: "list", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Item") {
                AttributeDescription("title", .string)
                RelationshipDescription("list", to: "List", inverse: "items")
            }
        }
    }

    func run() async throws {
        let model = try Self.model()
        var people: [String: CloudContainer] = [:]
        for name in ["ada", "grace", "alan"] {
            guard let token = tokens[name] else { throw CLIError("the demo has no token for \(name)") }
            people[name] = try device(name, token: token, model: model)
        }
        let ada = people["ada"]!, grace = people["grace"]!, alan = people["alan"]!
        step("three users, each with a private and a shared store: ada, grace, alan")

        let context = ada.newBackgroundContext()
        let list = try await context.perform {
            let list = try context.insertNewObject(forEntityName: "List")
            list.setValue("Groceries", forKey: "name")
            for title in ["milk", "eggs"] {
                let item = try context.insertNewObject(forEntityName: "Item")
                item.setValue(title, forKey: "title")
                item.setValue(list, forKey: "list")
            }
            try context.save()
            return list.objectID
        }
        try await ada.syncNow()
        var (_, share) = try await ada.share(objectIDs: [list])
        share.participants = [ShareParticipant(userName: "grace", permission: .readWrite), ShareParticipant(userName: "alan", permission: .readOnly)]
        share = try await ada.persistUpdatedShare(share, in: try Self.store(.private, of: ada))
        step("ada: shared 'Groceries' (milk, eggs) with grace (read-write) and alan (read-only): \(share.url?.absoluteString ?? "")")

        for (name, container) in [("grace", grace), ("alan", alan)] {
            guard let url = share.url else { throw CLIError("the share has no URL") }
            try await container.acceptShareInvitations(from: [url], into: try Self.store(.shared, of: container))
            step("\(name): accepted; sees \(try await items(container))")
        }

        let graceContext = grace.newBackgroundContext()
        try await graceContext.perform {
            let list = try Self.list(graceContext)
            let item = try graceContext.insertNewObject(forEntityName: "Item")
            item.setValue("bread", forKey: "title")
            item.setValue(list, forKey: "list")
            try graceContext.save()
        }
        try await grace.syncNow()
        step("grace: added bread")
        let alanContext = alan.newBackgroundContext()
        do {
            try await alanContext.perform {
                let list = try Self.list(alanContext)
                list.setValue("Alan's list", forKey: "name")
                try alanContext.save()
            }
            step("alan: renaming the list was accepted — it should not have been")
            throw ExitStatus.internalError.exitCode
        } catch let error as NimbusError {
            step("alan: renaming the list is refused: \(error.message)")
        }
        try await ada.syncNow()
        try await alan.syncNow()
        step("ada: \(try await items(ada)); alan: \(try await items(alan))")

        share.participants.removeAll { $0.userName == "alan" }
        share = try await ada.persistUpdatedShare(share, in: try Self.store(.private, of: ada))
        try await alan.syncNow()
        let alanLists = try await count(alan)
        step("ada removed alan; alan's copy: \(alanLists == 0 ? "gone" : "\(alanLists) list(s) left")")
        try await grace.syncNow()
        step("grace still sees \(try await items(grace))")
        guard alanLists == 0, try await items(grace) == items(ada) else { throw ExitStatus.internalError.exitCode }
        step("everyone holds what the share allows them")
    }

    private func device(_ name: String, token: String, model: ManagedObjectModel) throws -> CloudContainer {
        let directory = folder.appendingPathComponent("sharing-\(name)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let container = CloudContainer(name: name, managedObjectModel: model)
        container.automaticallySyncs = false
        container.persistentStoreDescriptions = [DatabaseScope.private, .shared].map { scope in
            var description = PersistentStoreDescription(url: directory.appendingPathComponent("\(scope.rawValue).sqlite"))
            description.cloudContainerOptions = CloudContainerOptions(serverURL: server, containerIdentifier: "com.example.lists",
                                                                      databaseScope: scope, token: token)
            return description
        }
        try container.loadPersistentStores()
        return container
    }

    static func store(_ scope: DatabaseScope, of container: CloudContainer) throws -> PersistentStore {
        guard let store = container.mirroredStore(for: scope) else { throw CLIError("the demo's device has no \(scope.rawValue) store") }
        return store
    }

    static func list(_ context: ManagedObjectContext) throws -> ManagedObject {
        guard let list = try context.fetch(FetchRequest<ManagedObject>(entityName: "List")).first else { throw CLIError("no list") }
        return list
    }

    private func items(_ container: CloudContainer) async throws -> String {
        let context = container.newBackgroundContext()
        return try await context.perform {
            let titles = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")).compactMap { $0.value(forKey: "title") as? String }
            return titles.sorted().joined(separator: ", ")
        }
    }

    private func count(_ container: CloudContainer) async throws -> Int {
        let context = container.newBackgroundContext()
        return try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: "List")) }
    }
}
