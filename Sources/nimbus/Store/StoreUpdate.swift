import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store update <store> <Entity> --predicate P key=value…`.
    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Edit the objects matching a predicate and save them.",
            discussion: """
                Values are parsed as for insert (by each attribute's type; relationships as object URIs, \
                Entity[key=value] or a predicate on the destination entity, resolved in this store). \
                key+=VALUE adds the objects VALUE names to a to-many relationship, key-=VALUE removes them \
                (removing one that is not a member changes nothing; a VALUE that names no object is an error). \
                Example: nimbus store update Posts.sqlite Post --predicate "title == 'Draft'" title=Published views=3 \
                "tags+=Tag[name=swift]" "tags-=name BEGINSWITH 'old'"
                """)

        @Argument(help: "The store file or device folder.") var store: String
        @Argument(help: "The entity name.") var entity: String
        @Option(help: "Which objects to edit; use TRUEPREDICATE for all.") var predicate: String
        @Option(name: .customLong("arg"), help: "A value for the predicate's next %@, in order: uri:x-coredata://… (an object), string:, int:, double:, bool:, date: (ISO 8601), uuid:, or nil.")
        var arguments: [String] = []
        @Argument(help: "key=value, key+=value or key-=value assignments.") var values: [String] = []
        @Option(help: "The author recorded in persistent history (default nimbus-cli).") var author: String?
        @Flag(help: "Print the edited objects as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, author: author)
                let assignments = try ValueParsing.assignments(values)
                guard !assignments.isEmpty else { throw CLIError("give at least one key=value to set") }
                var request = FetchRequest<ManagedObject>(entityName: entity)
                request.predicate = try session.predicate(predicate, arguments: arguments)
                let edited = try session.context.performAndWait { () throws -> [[String: Any]] in
                    let objects = try session.context.fetch(request)
                    var resolved: [Int: [ManagedObject]] = [:]
                    for object in objects { try ValueParsing.apply(assignments, to: object, session: session, resolved: &resolved) }
                    try session.context.save()
                    return objects.map { ObjectJSON.dictionary(for: $0) }
                }
                print(json ? try ObjectJSON.serialize(edited) : "updated \(edited.count)")
            }
        }
    }
}
