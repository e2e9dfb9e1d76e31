import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store destroy <store>`.
    struct Destroy: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Destroy a store safely: empty it through SQLite, then remove its file, -wal, -shm and external data.",
            discussion: "Example: nimbus store destroy old/Local.sqlite")

        @Argument(help: "The store file to destroy.") var store: String

        func run() throws {
            try reportingErrors {
                let url = URL(fileURLWithPath: store)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw NimbusError(.storeNotFound, "no store at \(store)")
                }
                try PersistentStoreCoordinator.destroyStoreFiles(at: url)
                print("destroyed \(store)")
            }
        }
    }
}
