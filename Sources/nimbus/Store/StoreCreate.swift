import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store create <store> --model <path>`.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a store from a model: an .xcdatamodeld package, an .xcdatamodel folder or a JSON model.")

        @Argument(help: "The store file to create.") var store: String
        @Option(help: "The model: .xcdatamodeld, .xcdatamodel, or .json.") var model: String
        @Option(help: "Journal mode: wal (default) or delete.") var journalMode: String = "wal"
        @Flag(help: "Record persistent history of every change.") var history = false
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                // Never open what is there: adding a store of another model would migrate it.
                guard !FileManager.default.fileExists(atPath: store) else {
                    throw CLIError("\(store) already exists; nothing was changed (to move a store to a new model use `nimbus store migrate \(store) --model <model>`; to start over, delete the file first)")
                }
                let managedObjectModel = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
                guard let mode = PersistentStoreDescription.JournalMode(rawValue: journalMode.uppercased()) else {
                    throw CLIError("journal mode must be wal or delete, not \(journalMode)")
                }
                var description = PersistentStoreDescription(url: URL(fileURLWithPath: store))
                description.journalMode = mode
                description.persistentHistoryTracking = history
                let coordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
                let persistentStore = try coordinator.addPersistentStore(with: description)
                for note in managedObjectModel.unsupportedFeatures {
                    FileHandle.standardError.write(Data("nimbus: note: \(note)\n".utf8))
                }
                if json {
                    print(try ObjectJSON.serialize([
                        "store": store, "storeUUID": persistentStore.identifier,
                        "entities": managedObjectModel.entities.map(\.name),
                    ]))
                } else {
                    print("created \(store) (\(managedObjectModel.entities.count) entities, store UUID \(persistentStore.identifier))")
                }
            }
        }
    }
}
