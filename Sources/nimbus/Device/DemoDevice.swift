import Foundation
import Nimbus
import NimbusCloud

/// The seeds' sample app (WWDC 2019): posts with tags and attachments in a Cloud
/// configuration, locations in a Local one.
enum DemoModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Cloud": ["Post", "Tag", "Attachment"], "Local": ["Location"]]) {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("content", .string)
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

/// One device of the demo: a cloud container over its own store files.
final class DemoDevice: @unchecked Sendable {
    let name: String
    let container: CloudContainer
    let step: StepPrinter
    private var listener: Task<Void, Never>?

    convenience init(name: String, folder: URL, server: URL, token: String, model: ManagedObjectModel, verbose: Bool, step: StepPrinter) throws {
        try self.init(name: name, folder: folder, options: CloudContainerOptions(serverURL: server, containerIdentifier: "com.example.posts", token: token),
                      model: model, verbose: verbose, step: step)
    }

    /// A device whose Cloud store mirrors with `options` (a server's or a shared folder's).
    init(name: String, folder: URL, options: CloudContainerOptions, model: ManagedObjectModel, verbose: Bool, step: StepPrinter) throws {
        self.name = name
        self.step = step
        let directory = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        container = CloudContainer(name: name, managedObjectModel: model)
        container.automaticallySyncs = false
        var cloud = PersistentStoreDescription(url: directory.appendingPathComponent("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        cloud.cloudContainerOptions = options
        var local = PersistentStoreDescription(url: directory.appendingPathComponent("Local.sqlite"))
        local.configuration = "Local"
        container.persistentStoreDescriptions = [cloud, local]
        try container.loadPersistentStores()
        let events = container.events
        listener = Task {
            for await event in events where verbose || (event.phase == .ended && (event.recordCount > 0 || event.error != nil)) {
                step("  \(name) event: \(event)")
            }
        }
    }

    func edit(_ block: @escaping @Sendable (ManagedObjectContext) throws -> Void) async throws {
        let context = container.newBackgroundContext()
        try await context.perform {
            try block(context)
            try context.save()
        }
    }

    func sync() async throws {
        let summary = try await container.syncNow()
        try await Task.sleep(for: .milliseconds(20))   // let the event printer catch up
        step("\(name): synced (exported \(summary.exported), imported \(summary.imported), deleted \(summary.deleted), conflicts \(summary.conflicts))")
    }

    func close() async {
        listener?.cancel()
        await container.stopSyncing()
    }

    static func post(_ context: ManagedObjectContext) throws -> ManagedObject {
        guard let post = try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first else {
            throw CLIError("the post did not arrive")
        }
        return post
    }

    static func tag(_ name: String, _ context: ManagedObjectContext) throws -> ManagedObject {
        var request = FetchRequest<ManagedObject>(entityName: "Tag")
        request.predicate = try QueryPredicate(format: "name == %@", name)
        guard let tag = try context.fetch(request).first else { throw CLIError("no tag \(name)") }
        return tag
    }

    func count(_ entity: String) async throws -> Int {
        let context = container.newBackgroundContext()
        return try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
    }

    /// Every post with its content, tags and attachments, as text.
    func snapshot() async throws -> [String] {
        let context = container.newBackgroundContext()
        return try await context.perform {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).map { post in
                let tags = (post.value(forKey: "tags") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
                let attachments = (post.value(forKey: "attachments") as? Set<ManagedObject> ?? []).map { attachment in
                    "\(attachment.value(forKey: "name") as? String ?? "?") (\((attachment.value(forKey: "data") as? Data)?.count ?? 0) bytes)"
                }.sorted()
                return "\"\(post.value(forKey: "title") as? String ?? "")\": \"\(post.value(forKey: "content") as? String ?? "")\" "
                    + "tags [\(tags.joined(separator: ", "))] attachments [\(attachments.joined(separator: ", "))]"
            }.sorted()
        }
    }

    func describe() async throws -> String {
        try await snapshot().joined(separator: "; ")
    }
}
