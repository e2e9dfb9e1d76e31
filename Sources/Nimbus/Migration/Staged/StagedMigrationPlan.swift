import Foundation
import GRDB

/// Takes a store across many model versions in one go: Core Data's
/// `NSStagedMigrationManager`, SwiftData's `SchemaMigrationPlan`.
///
/// The plan finds the stage whose source model wrote the store (by its entity version
/// hashes) and runs that stage and every later one on a working copy built beside the
/// store (`.<name>.migration/`). Only when every stage has succeeded does the copy replace
/// the store, by an atomic rename; a failure or a crash at any earlier point leaves the
/// store exactly as it was (a leftover working copy is discarded by the next run).
///
/// For example:
///
/// ```swift
/// let plan = try StagedMigrationPlan([.lightweight(from: v1, to: v2), .custom(from: v2, to: v3, mapping: m23)])
/// try plan.migrateStore(at: url) { progress in print(progress.stageLabel, progress.fractionCompleted) }
/// ```
///
/// The store must not be open (in this process or another) while it migrates.
public struct StagedMigrationPlan: Sendable, Hashable {
    public let stages: [MigrationStage]
    /// Versions of a model package that could not be read (with why), left out of the
    /// plan: only stores written with them cannot migrate.
    public internal(set) var unreadableVersions: [String: String] = [:]
    /// Plans compare by identity (their stages hold closures).
    private let identity = UUID()

    public static func == (a: StagedMigrationPlan, b: StagedMigrationPlan) -> Bool { a.identity == b.identity }
    public func hash(into hasher: inout Hasher) { hasher.combine(identity) }

    /// Creates a plan; each stage must start at the model the one before it ends at.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` for an empty plan or a
    ///   gap between stages.
    public init(_ stages: [MigrationStage]) throws {
        guard !stages.isEmpty else { throw NimbusError(.invalidArgument, "a migration plan needs at least one stage") }
        for (a, b) in zip(stages, stages.dropFirst()) where a.destinationModel.entityVersionHashesByName != b.sourceModel.entityVersionHashesByName {
            throw NimbusError(.invalidArgument, "stage \"\(b.label)\" does not start at the model stage \"\(a.label)\" ends at")
        }
        self.stages = stages
    }

    /// The stages a store needs: from the one whose source model wrote it to the end
    /// (empty when the store is at the last model already).
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/migrationFailed`` when the store's model
    ///   is none of the plan's; ``NimbusError/Code-swift.struct/storeNotFound``.
    public func stages(forStoreAt url: URL) throws -> ArraySlice<MigrationStage> {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw NimbusError(.storeNotFound, "no store at \(url.path) to migrate")
        }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        let hashes = metadata["NSStoreModelVersionHashes"] as? [String: Data] ?? [:]
        // A store bound to a configuration holds that configuration's entities only.
        if stages.last!.destinationModel.isCompatible(withStoreHashes: hashes) { return [] }
        guard let start = stages.firstIndex(where: { $0.sourceModel.isCompatible(withStoreHashes: hashes) }) else {
            let unreadable = unreadableVersions.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            throw NimbusError(.migrationFailed, "the store at \(url.path) was written with a model that is none of the plan's models; nothing was changed"
                              + (unreadable.isEmpty ? "" : " (versions that could not be read, which it may have been written with: " + unreadable.joined(separator: "; ") + ")"))
        }
        return stages[start...]
    }

    /// Migrates the store at `url` to the plan's last model.
    ///
    /// - Parameters:
    ///   - url: The store file.
    ///   - progress: Called as each stage starts and ends.
    /// - Returns: The labels of the stages that ran (empty when the store was current).
    /// - Throws: ``NimbusError/Code-swift.struct/migrationFailed`` naming the stage that
    ///   failed and why; the store is unchanged then.
    @discardableResult
    public func migrateStore(at url: URL, progress: (@Sendable (MigrationProgress) -> Void)? = nil) throws -> [String] {
        let work = StagedMigrationWorkspace(store: url)
        try work.discardLeftovers()
        let pending = try stages(forStoreAt: url)
        guard !pending.isEmpty else { return [] }
        defer { work.discard() }
        let count = pending.count
        let report: @Sendable (Int, MigrationStage, String, Double) -> Void = { index, stage, step, fraction in
            progress?(MigrationProgress(stageIndex: index, stageCount: count, stageLabel: stage.label, step: step,
                                        fractionCompleted: min(1, (Double(index) + fraction) / Double(count))))
        }
        try work.copyStore()
        for (index, stage) in pending.enumerated() {
            do {
                if let willMigrate = stage.willMigrate {
                    report(index, stage, "willMigrate", 0)
                    try work.withContext(model: stage.sourceModel, willMigrate)
                }
                report(index, stage, "migrating", 0.1)
                switch stage.kind {
                case let .custom(mapping?):
                    try work.runMapping(mapping, from: stage.sourceModel, to: stage.destinationModel) { fraction, _ in
                        report(index, stage, "migrating", 0.1 + fraction * 0.8)
                    }
                case .lightweight, .custom(nil):
                    try work.runLightweight(to: stage.destinationModel)
                }
                if let didMigrate = stage.didMigrate {
                    report(index, stage, "didMigrate", 0.9)
                    try work.withContext(model: stage.destinationModel, didMigrate)
                }
            } catch let error as NimbusError {
                var failure = NimbusError(.migrationFailed, "stage \"\(stage.label)\" failed; the store at \(url.path) was not changed: \(error.message)", underlying: error)
                failure.validationFailures = error.validationFailures
                throw failure
            } catch {
                throw NimbusError(.migrationFailed, "stage \"\(stage.label)\" failed; the store at \(url.path) was not changed: \(error)")
            }
            report(index, stage, index == count - 1 ? "swapping" : "done", 1)
        }
        try work.swap()
        return pending.map(\.label)
    }
}
