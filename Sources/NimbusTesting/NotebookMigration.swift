import Foundation
import Nimbus

/// The custom migration of the Notebook test app (`Tests/NimbusTests/Fixtures/Notebook.xcdatamodeld`
/// and its `Notebook2to3.xcmappingmodel`), shared by the tests and the worker process that
/// is killed while it migrates.
public enum NotebookMigration {
    /// The policy the 2 → 3 mapping names (`NotebookApp.NoteMigrationPolicy`): priority 2
    /// for pinned notes, 1 for starred ones, else 0; drops notes whose text is `DELETE ME`;
    /// upper-cases "Todo" at the start of titles.
    public struct NoteMigrationPolicy: EntityMigrationPolicy {
        public init() {}

        public func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            if (source.value(forKey: "text") as? String) == "DELETE ME" { return }
            let note = try manager.createDestinationInstance(for: source, mapping: mapping)
            if let title = note.value(forKey: "title") as? String, title.hasPrefix("Todo") {
                note.setValue("TODO" + title.dropFirst(4), forKey: "title")
            }
        }

        public func function(named selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
            guard selector == "priorityForPinned:starred:" else {
                throw NimbusError(.migrationFailed, "unknown function \(selector)")
            }
            if arguments[0] as? Bool == true { return 2 }
            return arguments[1] as? Bool == true ? 1 : 0
        }
    }

    /// The app's plan from version 1 to 5 (models and mapping read from `fixtures`): a
    /// custom stage that stars the "plans" note at version 2, the mapping-model stage, a
    /// lightweight stage, and a stage that counts each notebook's notes at version 5.
    public static func plan(fixtures: URL, failingAt failing: Int? = nil) throws -> StagedMigrationPlan {
        MigrationPolicies.register(NoteMigrationPolicy.self, as: "NoteMigrationPolicy")
        let package = fixtures.appendingPathComponent("Notebook.xcdatamodeld")
        let models = try (1...5).map { n in
            try ManagedObjectModel(contentsOf: package.appendingPathComponent(n == 1 ? "Notebook.xcdatamodel" : "Notebook \(n).xcdatamodel"))
        }
        let mapping = try MappingModel(contentsOf: fixtures.appendingPathComponent("Notebook2to3.xcmappingmodel"))
        let fail: @Sendable (Int) -> MigrationStage.Handler? = { stage in
            guard failing == stage else { return nil }
            return { _ in throw NimbusError(.invalidArgument, "stage \(stage) refused on purpose") }
        }
        return try StagedMigrationPlan([
            .custom(from: models[0], to: models[1], label: "1 → 2", didMigrate: { context in
                var request = FetchRequest<ManagedObject>(entityName: "Note")
                request.predicate = try QueryPredicate(format: "title == 'plans'")
                try context.fetch(request).first?.setValidatedValue(true, forKey: "starred")
                try context.save()
                try fail(1)?(context)
            }),
            .custom(from: models[1], to: models[2], mapping: mapping, label: "2 → 3", didMigrate: fail(2)),
            .lightweight(from: models[2], to: models[3], label: "3 → 4"),
            .custom(from: models[3], to: models[4], label: "4 → 5", willMigrate: fail(4), didMigrate: { context in
                var request = FetchRequest<ManagedObject>(entityName: "Notebook")
                request.sortDescriptors = [FetchSortDescriptor("title")]
                for notebook in try context.fetch(request) {
                    notebook.setValue((notebook.value(forKey: "notes") as? Set<ManagedObject>)?.count ?? 0, forKey: "noteCount")
                }
                try context.save()
            }),
        ])
    }
}
