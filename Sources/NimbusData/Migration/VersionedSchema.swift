/// One version of an app's models, for migration: SwiftData's `VersionedSchema`.
///
/// ```swift
/// enum TripsSchemaV1: VersionedSchema {
///     static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { var name: String = "" }
/// }
/// ```
public protocol VersionedSchema {
    /// The version.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// The versions of an app's schema and the stages between them: SwiftData's
/// `SchemaMigrationPlan`. The container runs the stages a store needs when it opens.
///
/// ```swift
/// enum TripsMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self)] }
/// }
/// let container = try ModelContainer(for: Schema(versionedSchema: TripsSchemaV2.self), migrationPlan: TripsMigrationPlan.self,
///                                    configurations: ModelConfiguration(url: storeURL))
/// ```
public protocol SchemaMigrationPlan {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages, oldest first; each goes from one version to the next.
    static var stages: [MigrationStage] { get }
}

/// A step between two schema versions: SwiftData's `MigrationStage`.
public enum MigrationStage: @unchecked Sendable {
    /// An inferred migration (added or removed properties and models, renames through
    /// `originalName`, optionality changes with defaults).
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// An inferred migration with closures around it: `willMigrate` sees a context at the
    /// source version, `didMigrate` one at the destination version. Save the context to
    /// keep what a closure changes.
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)
}
