import Foundation
import Nimbus

/// The Notebook app's model as a real app ships it: `Fixtures/Notebook.xcdatamodeld` with five
/// versions drawn in Xcode's format (lenient defaults, an empty-able required to-many, a fetch
/// index naming a to-many, a uniqueness constraint, an external-storage attribute), and the
/// mapping model `Notebook2to3.xcmappingmodel` Xcode's editor would save for the step 2 → 3
/// (written by `Tests/FixtureTools/make_notebook_mapping.py`).
enum NotebookFixtures {
    static var package: URL { XcodeModelFixtures.directory.appendingPathComponent("Notebook.xcdatamodeld") }
    static var mapping2to3: URL { XcodeModelFixtures.directory.appendingPathComponent("Notebook2to3.xcmappingmodel") }

    /// Version `n` (1…5).
    static func version(_ n: Int) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: package.appendingPathComponent(n == 1 ? "Notebook.xcdatamodel" : "Notebook \(n).xcdatamodel"))
    }

    /// The custom policy the 2 → 3 mapping names (`NotebookApp.NoteMigrationPolicy`):
    /// priority 2 for pinned notes, 1 for starred ones, else 0; and it drops notes whose
    /// text says `DELETE ME`, and upper-cases the first word of titles that start with "todo".
    struct NoteMigrationPolicy: EntityMigrationPolicy {
        func createDestinationInstances(for source: ManagedObject, mapping: EntityMapping, manager: MigrationManager) throws {
            if (source.value(forKey: "text") as? String) == "DELETE ME" { return }
            let note = try manager.createDestinationInstance(for: source, mapping: mapping)
            if let title = note.value(forKey: "title") as? String, title.hasPrefix("Todo") {
                note.setValue("TODO" + title.dropFirst(4), forKey: "title")
            }
        }

        func function(named selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
            guard selector == "priorityForPinned:starred:" else {
                throw NimbusError(.migrationFailed, "unknown function \(selector)")
            }
            if arguments[0] as? Bool == true { return 2 }
            return arguments[1] as? Bool == true ? 1 : 0
        }
    }

    static func registerPolicy() {
        MigrationPolicies.register(NoteMigrationPolicy.self, as: "NoteMigrationPolicy")
    }
}
