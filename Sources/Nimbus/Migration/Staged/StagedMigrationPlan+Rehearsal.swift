import Foundation

extension StagedMigrationPlan {
    /// Runs the whole plan on a throwaway copy of the store, so a dry run gives the real
    /// run's answer: a custom policy that is not registered, a value that breaks the new
    /// model, a required attribute with rows to fill. The store itself is only read.
    ///
    /// For example:
    ///
    /// ```swift
    /// do { try plan.rehearseMigration(ofStoreAt: url) } catch let error as NimbusError { print(error.message) }
    /// ```
    ///
    /// - Throws: what ``migrateStore(at:progress:)`` would throw, naming the store rather
    ///   than its copy; ``NimbusError/Code-swift.struct/io`` when no copy can be made.
    public func rehearseMigration(ofStoreAt url: URL) throws {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("nimbus-rehearsal-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        guard !(try stages(forStoreAt: url)).isEmpty else { return }
        let workspace = StagedMigrationWorkspace(store: url, folder: scratch)
        try workspace.copyStore()
        do {
            try migrateStore(at: workspace.copy)
        } catch let error as NimbusError {
            var failure = NimbusError(error.code, error.message.replacingOccurrences(of: workspace.copy.path, with: url.path), underlying: error)
            failure.validationFailures = error.validationFailures
            throw failure
        }
    }
}
