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
                dates in ISO 8601, UUIDs, binary as @path or base64, relationships as object URIs \
                (comma-separated for to-many). A key left out stays nil (or its default).
                """)

        @Argument(help: "The store file.") var store: String
        @Argument(help: "The entity name.") var entity: String
        @Argument(help: "key=value assignments.") var values: [String] = []
        @Option(help: "The author recorded in persistent history (default nimbus-cli).") var author: String?
        @Flag(help: "Print the inserted object as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, author: author)
                let assignments = try ValueParsing.assignments(values)
                let output = try session.context.performAndWait { () throws -> [String: Any] in
                    let object = try session.context.insertNewObject(forEntityName: entity)
                    try ValueParsing.apply(assignments, to: object, session: session)
                    try session.context.save()
                    return ObjectJSON.dictionary(for: object)
                }
                print(json ? try ObjectJSON.serialize(output) : "\(output["objectID"]!)")
            }
        }
    }
}
