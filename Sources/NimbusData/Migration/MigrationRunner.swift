import Foundation
import Nimbus

/// Runs a `SchemaMigrationPlan` on a container's store files before they open, through
/// Nimbus's staged migration (decision 0104).
struct MigrationRunner {
    let plan: any SchemaMigrationPlan.Type
    let schema: Schema
    let descriptions: [PersistentStoreDescription]

    func run() throws {
        let files = descriptions.compactMap { $0.type == .sqlite ? $0.url : nil }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        guard !files.isEmpty, !plan.stages.isEmpty else { return }
        let stages = try plan.stages.map(nimbusStage)
        do {
            let staged = try StagedMigrationPlan(stages)
            for file in files { try staged.migrateStore(at: file) }
        } catch let error as SwiftDataError {
            throw error
        } catch {
            throw SwiftDataError(.migrationFailed, "the migration plan \(plan) failed; the store is unchanged: \(error)", underlying: error)
        }
    }

    private func nimbusStage(_ stage: MigrationStage) throws -> StagedMigrationStage {
        switch stage {
        case let .lightweight(from, to):
            return .lightweight(from: try model(from), to: try model(to), label: label(from, to))
        case let .custom(from, to, willMigrate, didMigrate):
            let source = Schema(versionedSchema: from)
            let destination = Schema(versionedSchema: to)
            let sourceModel = try source.makeManagedObjectModel()
            let destinationModel = try destination.makeManagedObjectModel()
            return .custom(from: sourceModel, to: destinationModel, label: label(from, to),
                           willMigrate: willMigrate.map { handler(UncheckedHandler(body: $0), schema: source, model: sourceModel) },
                           didMigrate: didMigrate.map { handler(UncheckedHandler(body: $0), schema: destination, model: destinationModel) })
        }
    }

    private func model(_ version: any VersionedSchema.Type) throws -> ManagedObjectModel {
        try Schema(versionedSchema: version).makeManagedObjectModel()
    }

    private func label(_ from: any VersionedSchema.Type, _ to: any VersionedSchema.Type) -> String {
        "\(from.versionIdentifier) → \(to.versionIdentifier)"
    }

    private func handler(_ handler: UncheckedHandler, schema: Schema, model: ManagedObjectModel) -> StagedMigrationStage.Handler {
        let shell = UncheckedShell(schema: schema, model: model)
        return { context in
            let container = ModelContainer(shell: shell.schema, model: shell.model)
            try handler.body(ModelContext(wrapping: context, container: container))
        }
    }
}

/// A stage's closure, which runs once, on the migration's context queue.
private struct UncheckedHandler: @unchecked Sendable {
    let body: (ModelContext) throws -> Void
}

private struct UncheckedShell: @unchecked Sendable {
    let schema: Schema
    let model: ManagedObjectModel
}
