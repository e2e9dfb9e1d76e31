import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store inspect <store> [--json]`.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a store's UUID, journal mode, model version hash, and its entities with row counts, attributes, relationships, indexes and constraints, and the model's notes.")

        @Argument(help: "The store file or device folder.") var store: String
        @Option(help: "The model to open the store with (.xcdatamodeld, .xcdatamodel or .json), for a store whose model the file does not keep in a form Nimbus reads: one Apple's Core Data wrote.") var model: String?
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, readOnly: true, modelPath: model)
                let info = try session.store.inspection()
                let entities = try session.context.performAndWait { () throws -> [[String: Any]] in
                    var own: [String: Int] = [:]
                    for entity in session.model.entities {
                        var request = FetchRequest<ManagedObject>(entityName: entity.name)
                        request.includesSubentities = false
                        own[entity.name] = try session.context.count(for: request)
                    }
                    // A parent counts its sub-entities' rows too (an abstract one has none of its own).
                    func total(_ entity: EntityDescription) -> Int {
                        own[entity.name]! + entity.subentityNames.compactMap { session.model.entitiesByName[$0] }.map(total).reduce(0, +)
                    }
                    return session.model.entities.map { Self.describe($0, own: own[$0.name]!, total: total($0)) }
                }
                let hash = session.model.versionHash.map { String(format: "%02x", $0) }.joined()
                // Who wrote the file: Apple's Core Data records its framework build number.
                let metadata = session.store.metadata
                let framework = metadata["NSPersistenceFrameworkVersion"].map { "\($0)" }
                let writer = metadata["NimbusModelVersionHash"] == nil && !(framework ?? "").hasPrefix("Nimbus")
                    ? "Core Data (framework version \(framework ?? "unknown"))" : (framework ?? "Nimbus")
                if json {
                    print(try ObjectJSON.serialize([
                        "store": store, "storeUUID": session.store.identifier, "journalMode": info.journalMode,
                        "modelVersionHash": hash, "entities": entities, "writtenBy": writer,
                        "persistenceFrameworkVersion": framework ?? NSNull(),
                        "modelVersionIdentifiers": session.model.versionIdentifiers.sorted(),
                        "modelNotes": session.model.unsupportedFeatures,
                    ]))
                } else {
                    print("store        \(store)")
                    print("store UUID   \(session.store.identifier)")
                    print("written by   \(writer)")
                    print("journal mode \(info.journalMode)")
                    print("model hash   \(hash)")
                    print("entities")
                    for entity in entities { Self.text(entity).forEach { print($0) } }
                    if !session.model.unsupportedFeatures.isEmpty {
                        print("model notes")
                        for note in session.model.unsupportedFeatures { print("  \(note)") }
                    }
                }
            }
        }
    }
}
