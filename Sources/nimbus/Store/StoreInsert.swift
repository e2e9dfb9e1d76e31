import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store insert <store> <Entity> key=value…`.
    struct Insert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Insert one object and save it.",
            discussion: """
                Values are parsed by each attribute's type: numbers as written, booleans true/false/YES/NO/1/0, \
                dates in ISO 8601, UUIDs, binary as @path or base64, strings as written or read from a UTF-8 \
                file as @path (@@text for a string that starts with @). Relationships take object URIs \
                (comma-separated for to-many), Entity[key=value] (e.g. author=Person[email=ada@example.com]) or a \
                predicate on the destination entity (e.g. "tags=name IN {'a', 'b'}"), resolved in this store; \
                a value that names no object is an error. A key left out stays nil (or its default).
                """)

        @Argument(help: "The store file or device folder.") var store: String
        @Argument(help: "The entity name.") var entity: String
        @Argument(help: "key=value assignments.") var values: [String] = []
        @Option(help: "The author recorded in persistent history (default nimbus-cli).") var author: String?
        @Option(help: "In a device folder: the store the object goes to, private (default) or shared. An object related to a shared object goes to the shared store by itself.")
        var scope: String?
        @Flag(help: "Print the inserted object as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, author: author)
                let assignments = try ValueParsing.assignments(values)
                let output = try session.context.performAndWait { () throws -> [String: Any] in
                    let object = try session.context.insertNewObject(forEntityName: entity)
                    if let store = try DeviceFolder.store(scope: scope, in: session.coordinator, for: object.entity) {
                        session.context.assign(object, to: store)
                    }
                    var resolved: [Int: [ManagedObject]] = [:]
                    try ValueParsing.apply(assignments, to: object, session: session, resolved: &resolved)
                    try session.context.save()
                    return ObjectJSON.dictionary(for: object)
                }
                print(json ? try ObjectJSON.serialize(output) : "\(output["objectID"]!)")
            }
        }
    }
}
