import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store search <store> "query" [--entity E] [--limit N] [--json]`: full-text
    /// search over the attributes the model marks for Spotlight, after indexing the
    /// history written since the index was last brought up to date.
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Search the store's objects by the text of attributes marked for Spotlight.",
            discussion: """
                Words must all match; "a phrase" in quotes; cafe* matches words starting with cafe; OR between words; \
                -word excludes. Case and diacritics are ignored. The store must track persistent history; pending \
                history is indexed first (the first search builds the index).
                """)

        @Argument(help: "The store file or device folder.") var store: String
        @Argument(help: "The search, e.g. \"cafe* -decaf\".") var query: String
        @Option(help: "Only objects of this entity (sub-entities included); repeat for more.") var entity: [String] = []
        @Option(help: "The most results.") var limit = 20
        @Flag(help: "Search what is indexed without indexing pending history first.") var noIndex = false
        @Flag(help: "Print the results as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                guard limit >= 0 else { throw CLIError("--limit must be 0 or more") }
                let session = try StoreSession(path: store)
                let indexer = try SearchIndexer(coordinator: session.coordinator, store: session.store)
                if !noIndex { try indexer.indexPendingChanges() }
                let results = try indexer.search(query, in: entity.isEmpty ? nil : entity, limit: limit)
                if json {
                    print(try ObjectJSON.serialize(results.map { hit -> [String: Any] in
                        ["objectID": hit.objectID.uriRepresentation().absoluteString, "entity": hit.objectID.entity.name,
                         "rank": hit.rank, "displayName": hit.displayName ?? NSNull(), "snippet": hit.snippet]
                    }))
                    return
                }
                if results.isEmpty { print("no matches") }
                for hit in results {
                    print("\(hit.objectID.entity.name) p\(hit.objectID.primaryKey)  \(hit.displayName ?? "-")  \(String(format: "%.3f", hit.rank))")
                    print("  \(hit.snippet.replacingOccurrences(of: "\n", with: " "))")
                }
            }
        }
    }
}
