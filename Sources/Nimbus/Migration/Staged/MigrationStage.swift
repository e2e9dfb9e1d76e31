import Foundation

/// One step of a ``StagedMigrationPlan``: Core Data's `NSLightweightMigrationStage` and
/// `NSCustomMigrationStage`, SwiftData's `MigrationStage`.
///
/// For example:
///
/// ```swift
/// let plan = try StagedMigrationPlan([
///     .lightweight(from: v1, to: v2),
///     .custom(from: v2, to: v3, mapping: try MappingModel(contentsOf: mapping2to3),
///             didMigrate: { context in /* fix up data in v3 */ }),
/// ])
/// try plan.migrateStore(at: storeURL)
/// ```
public struct MigrationStage: Sendable {
    /// How the stage moves the store to its destination model.
    public enum Kind: Sendable {
        /// An inferred (lightweight) migration, in place in the working copy.
        case lightweight
        /// A mapping model run by a ``MigrationManager`` into a new file; without one, an
        /// inferred migration (the closures are what makes the stage custom).
        case custom(MappingModel?)
    }

    /// A closure given a context on the working copy of the store: at the source model
    /// before the stage (`willMigrate`), at the destination model after it (`didMigrate`).
    /// It runs on the context's queue; save the context to keep changes.
    public typealias Handler = @Sendable (ManagedObjectContext) throws -> Void

    public var sourceModel: ManagedObjectModel
    public var destinationModel: ManagedObjectModel
    public var kind: Kind
    /// A name for progress and messages (`"v2 → v3"` unless given).
    public var label: String
    public var willMigrate: Handler?
    public var didMigrate: Handler?

    /// An inferred migration between two models.
    public static func lightweight(from source: ManagedObjectModel, to destination: ManagedObjectModel, label: String? = nil) -> MigrationStage {
        MigrationStage(sourceModel: source, destinationModel: destination, kind: .lightweight,
                       label: label ?? defaultLabel(source, destination), willMigrate: nil, didMigrate: nil)
    }

    /// A custom stage: closures around a mapping-model migration (or an inferred one).
    public static func custom(from source: ManagedObjectModel, to destination: ManagedObjectModel, mapping: MappingModel? = nil,
                              label: String? = nil, willMigrate: Handler? = nil, didMigrate: Handler? = nil) -> MigrationStage {
        MigrationStage(sourceModel: source, destinationModel: destination, kind: .custom(mapping),
                       label: label ?? defaultLabel(source, destination), willMigrate: willMigrate, didMigrate: didMigrate)
    }

    private static func defaultLabel(_ source: ManagedObjectModel, _ destination: ManagedObjectModel) -> String {
        let a = source.versionIdentifiers.sorted().first ?? "source model"
        let b = destination.versionIdentifiers.sorted().first ?? "destination model"
        return "\(a) → \(b)"
    }

    /// The mapping model the stage runs, if any.
    public var mappingModel: MappingModel? {
        if case let .custom(mapping) = kind { return mapping }
        return nil
    }
}

/// Where a staged migration is: Core Data's `NSMigrationManager.migrationProgress` and the
/// stage it reports.
public struct MigrationProgress: Sendable, Hashable {
    /// The stage running (0-based) and how many the plan runs for this store.
    public var stageIndex: Int
    public var stageCount: Int
    public var stageLabel: String
    /// What the stage is doing: `willMigrate`, `migrating`, `didMigrate`, `swapping`, `done`.
    public var step: String
    /// The fraction of the whole migration done, 0…1.
    public var fractionCompleted: Double
}

/// ``MigrationStage`` under a name that modules with a `MigrationStage` of their own
/// (NimbusData's SwiftData-style stage) can still write.
public typealias StagedMigrationStage = MigrationStage
