import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store inspect <store> [--json]`.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a store's UUID, journal mode, model version hash and entities with row counts.")

        @Argument(help: "The store file.") var store: String
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, readOnly: true)
                let info = try session.store.inspection()
                let entities = try session.context.performAndWait { () throws -> [[String: Any]] in
                    try session.model.entities.map { entity in
                        var request = FetchRequest<ManagedObject>(entityName: entity.name)
                        request.includesSubentities = false
                        return ["name": entity.name, "count": try session.context.count(for: request),
                                "parent": entity.superentityName as Any? ?? NSNull(), "abstract": entity.isAbstract]
                    }
                }
                let hash = session.model.versionHash.map { String(format: "%02x", $0) }.joined()
                if json {
                    print(try ObjectJSON.serialize([
                        "store": store, "storeUUID": session.store.identifier, "journalMode": info.journalMode,
                        "modelVersionHash": hash, "entities": entities,
                        "modelVersionIdentifiers": session.model.versionIdentifiers.sorted(),
                    ]))
                } else {
                    print("store        \(store)")
                    print("store UUID   \(session.store.identifier)")
                    print("journal mode \(info.journalMode)")
                    print("model hash   \(hash)")
                    print("entities")
                    for entity in entities {
                        let name = entity["name"] as! String
                        let parent = (entity["parent"] as? String).map { " : \($0)" } ?? ""
                        print("  \(name)\(parent)  \(entity["count"]!)")
                    }
                }
            }
        }
    }
}
