import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store delete <store> <Entity> --predicate P`.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the objects matching a predicate (delete rules apply).")

        @Argument(help: "The store file or device folder.") var store: String
        @Argument(help: "The entity name.") var entity: String
        @Option(help: "Which objects to delete; use TRUEPREDICATE for all.") var predicate: String
        @Option(name: .customLong("arg"), help: "A value for the predicate's next %@, in order: uri:x-coredata://… (an object), string:, int:, double:, bool:, date: (ISO 8601), uuid:, or nil.")
        var arguments: [String] = []
        @Option(help: "The author recorded in persistent history (default nimbus-cli).") var author: String?
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, author: author)
                var request = FetchRequest<ManagedObject>(entityName: entity)
                request.predicate = try session.predicate(predicate, arguments: arguments)
                let deleted = try session.context.performAndWait { () throws -> [String] in
                    let objects = try session.context.fetch(request)
                    for object in objects { session.context.delete(object) }
                    try session.context.save()
                    return objects.map { $0.objectID.uriRepresentation().absoluteString }
                }
                print(json ? try ObjectJSON.serialize(["deleted": deleted.count, "objectIDs": deleted]) : "deleted \(deleted.count)")
            }
        }
    }
}
