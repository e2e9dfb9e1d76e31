import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store explain <store> <Entity> [--predicate P] [--sort KEY[:desc]] [--limit N] [--json]`:
    /// the SQL a fetch sends and SQLite's query plan, to check that it uses a fetch index.
    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the SQL a fetch sends and SQLite's query plan for it.",
            discussion: "A predicate over an R-tree fetch index shows the R-tree's virtual table in the plan.")

        @Argument(help: "The store file or device folder.") var store: String
        @Argument(help: "The entity name.") var entity: String
        @Option(help: "A predicate in Core Data's format, e.g. \"latitude BETWEEN {40, 50}\".") var predicate: String?
        @Option(name: .customLong("arg"), help: "A value for the predicate's next %@, in order: uri:x-coredata://… (an object), string:, int:, double:, bool:, date: (ISO 8601), uuid:, or nil.")
        var arguments: [String] = []
        @Option(help: "Sort by KEY, KEY:desc or KEY:asc; repeat for more keys.") var sort: [String] = []
        @Option(help: "The most objects to return.") var limit: Int?
        @Option(help: "The model to open the store with (.xcdatamodeld, .xcdatamodel or .json), for a store whose model the file does not keep in a form Nimbus reads: one Apple's Core Data wrote.") var model: String?
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, readOnly: true, modelPath: model)
                var request = FetchRequest<ManagedObject>(entityName: entity)
                request.predicate = try session.predicate(predicate, arguments: arguments)
                request.sortDescriptors = try sort.map(Fetch.sortDescriptor)
                if let limit {
                    guard limit >= 0 else { throw CLIError("--limit must be 0 or more") }
                    request.fetchLimit = limit
                }
                let explanations = try session.context.performAndWait { try session.context.explain(request) }
                if json {
                    let entries = explanations.map { e -> [String: Any] in
                        ["sql": e.sql, "arguments": e.arguments, "queryPlan": e.queryPlan, "store": e.storeIdentifier]
                    }
                    print(try ObjectJSON.serialize(entries.count == 1 ? entries[0] : entries as Any))
                    return
                }
                for explanation in explanations {
                    print("SQL: \(explanation.sql)")
                    if !explanation.arguments.isEmpty { print("arguments: \(explanation.arguments.joined(separator: ", "))") }
                    print("query plan:")
                    for line in explanation.queryPlan { print("  \(line)") }
                }
            }
        }
    }
}
