import Foundation
import Nimbus
import NimbusTesting

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

    static func registerPolicy() {
        MigrationPolicies.register(NotebookMigration.NoteMigrationPolicy.self, as: "NoteMigrationPolicy")
    }
}
