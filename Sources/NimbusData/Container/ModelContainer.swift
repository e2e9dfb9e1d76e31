public import Foundation
public import Nimbus
public import NimbusCloud
import Synchronization

/// The stores of a schema and the contexts that use them: SwiftData's `ModelContainer`,
/// over a Nimbus `PersistentContainer` (a `CloudContainer` when a configuration mirrors).
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, BucketListItem.self,
///                                    configurations: ModelConfiguration(url: storeURL))
/// let context = ModelContext(container)
/// ```
public final class ModelContainer: @unchecked Sendable {
    /// The container's schema.
    public let schema: Schema
    /// The container's configurations.
    public let configurations: Set<ModelConfiguration>
    /// The migration plan run when the container opened, if any.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The Nimbus container underneath, for code that needs Nimbus's own API (a
    /// `CloudContainer` when a configuration mirrors; see ``cloudContainer``).
    public let persistentContainer: PersistentContainer
    /// The mirroring container when a configuration syncs, else nil.
    public var cloudContainer: CloudContainer? { persistentContainer as? CloudContainer }

    let modelTypes: [String: any PersistentModel.Type]
    let allowsSave: Bool
    private let main = Locked<ModelContext?>(nil)

    /// Opens a container for model types (and the types their relationships reach).
    ///
    /// - Throws: ``SwiftDataError`` when a property type cannot be stored, the store
    ///   cannot be opened, or a migration fails.
    public convenience init(for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens a container for a schema.
    public convenience init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens a container for a schema with a list of configurations.
    public convenience init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: [ModelConfiguration]) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations, server: .fromEnvironment)
    }

    /// Opens a container whose mirrored configurations sync through a given Nimbus server
    /// (Nimbus's addition: SwiftData's iCloud needs none).
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Schema([Trip.self]), configurations: [config],
    ///                                    server: SyncServer(url: serverURL, token: token))
    /// ```
    public init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                configurations givenConfigurations: [ModelConfiguration], server: SyncServer?) throws {
        let configurations = givenConfigurations.isEmpty ? [ModelConfiguration()] : givenConfigurations
        self.schema = givenSchema
        self.configurations = Set(configurations)
        self.migrationPlan = migrationPlan
        self.allowsSave = configurations.contains { $0.allowsSave }
        var types: [String: any PersistentModel.Type] = [:]
        for type in givenSchema.types { types[String(describing: type)] = type }
        self.modelTypes = types
        var modelConfigurations: [String: [String]] = [:]
        if configurations.count > 1 {
            for configuration in configurations {
                modelConfigurations[configuration.name] = (configuration.schema ?? givenSchema).types.map { String(describing: $0) }
            }
        }
        let model = try givenSchema.makeManagedObjectModel(configurations: modelConfigurations)
        var descriptions: [PersistentStoreDescription] = []
        var mirrors = false
        for configuration in configurations {
            var description: PersistentStoreDescription
            if configuration.isStoredInMemoryOnly {
                description = PersistentStoreDescription(type: .inMemory)
            } else {
                try? FileManager.default.createDirectory(at: configuration.url.deletingLastPathComponent(), withIntermediateDirectories: true)
                description = PersistentStoreDescription(url: configuration.url)
            }
            if configurations.count > 1 { description.configuration = configuration.name }
            description.persistentHistoryTracking = true
            if let options = try Self.cloudOptions(for: configuration, server: server) {
                description.cloudContainerOptions = options
                mirrors = true
            }
            descriptions.append(description)
        }
        let name = configurations.first?.name ?? "default"
        let container: PersistentContainer = mirrors ? CloudContainer(name: name, managedObjectModel: model) : PersistentContainer(name: name, managedObjectModel: model)
        container.persistentStoreDescriptions = descriptions
        if let migrationPlan {
            try MigrationRunner(plan: migrationPlan, schema: givenSchema, descriptions: descriptions).run()
        }
        do {
            try container.loadPersistentStores()
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "the container could not open its stores: \(error)", underlying: error)
        }
        self.persistentContainer = container
    }

    /// A container that stands for a schema without opening stores (the context of a
    /// migration stage's closures).
    init(shell schema: Schema, model: ManagedObjectModel) {
        self.schema = schema
        self.configurations = []
        self.migrationPlan = nil
        self.allowsSave = true
        var types: [String: any PersistentModel.Type] = [:]
        for type in schema.types { types[String(describing: type)] = type }
        self.modelTypes = types
        self.persistentContainer = PersistentContainer(name: "migration", managedObjectModel: model)
    }

    /// The main actor's context; it saves by itself after changes (``ModelContext/autosaveEnabled``).
    @MainActor public var mainContext: ModelContext {
        main.withLock { main in
            if let main { return main }
            let context = ModelContext(self)
            context.autosaveEnabled = true
            main = context
            return context
        }
    }

    /// Deletes every model of the schema from the stores.
    ///
    /// - Throws: the store's errors; nothing is deleted when it throws.
    public func deleteAllData() throws {
        let context = ModelContext(self)
        try context.performed {
            for type in schema.types {
                let request = FetchRequest<ManagedObject>(entityName: String(describing: type))
                for object in try context.managedObjectContext.fetch(request) { context.managedObjectContext.delete(object) }
            }
            try context.managedObjectContext.save()
        }
    }
}
