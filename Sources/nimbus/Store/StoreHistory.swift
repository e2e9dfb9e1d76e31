import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store history <store> [--after TOKEN] [--author A] [--json]`.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the store's persistent history: each transaction with its author and changes.")

        @Argument(help: "The store file or device folder.") var store: String
        @Option(help: "Show transactions after this token (<store UUID>:<transaction>).") var after: String?
        @Option(help: "Show only transactions by this author.") var author: String?
        @Option(help: "The model to open the store with (.xcdatamodeld, .xcdatamodel or .json), for a store whose model the file does not keep in a form Nimbus reads: one Apple's Core Data wrote.") var model: String?
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, readOnly: true, modelPath: model)
                // A store Apple's Core Data wrote is read for whatever history it holds.
                let apple = session.store.metadata["NimbusModelVersionHash"] == nil
                guard apple || session.store.metadata["NSPersistentHistoryTrackingKey"] as? Bool == true else {
                    throw CLIError("\(store) does not record persistent history (it was created without --history), so there is none to show")
                }
                var request = PersistentHistoryChangeRequest.fetchHistory(after: try after.map(PersistentHistoryToken.init(string:)))
                if let author { request.transactionPredicate = try QueryPredicate(format: "author == %@", author) }
                let transactions = try session.context.performAndWait { try session.context.execute(request).transactions }
                if json {
                    print(try ObjectJSON.serialize(transactions.map { transaction -> [String: Any] in
                        [
                            "token": transaction.token.description, "transaction": transaction.transactionNumber,
                            "timestamp": DateText.string(from: transaction.timestamp), "author": transaction.author ?? NSNull(),
                            "contextName": transaction.contextName ?? NSNull(), "bundleID": transaction.bundleID ?? NSNull(),
                            "processID": transaction.processID ?? NSNull(),
                            "changes": (transaction.changes ?? []).map { change -> [String: Any] in
                                var entry: [String: Any] = ["type": Self.name(change.changeType),
                                                            "objectID": change.changedObjectID.uriRepresentation().absoluteString,
                                                            "entity": change.changedObjectID.entity.name]
                                if let properties = change.updatedProperties { entry["updatedProperties"] = properties.sorted() }
                                if let tombstone = change.tombstone {
                                    entry["tombstone"] = tombstone.mapValues { ObjectJSON.json($0.anyValue, type: nil) }
                                }
                                return entry
                            },
                        ]
                    }))
                    return
                }
                if transactions.isEmpty {
                    print(after == nil && author == nil ? "no transactions recorded yet" : "no transactions match")
                }
                for transaction in transactions {
                    print("transaction \(transaction.transactionNumber)  \(DateText.string(from: transaction.timestamp))  "
                        + "author=\(transaction.author ?? "-")  context=\(transaction.contextName ?? "-")  token=\(transaction.token)")
                    for change in transaction.changes ?? [] {
                        var line = "  \(Self.name(change.changeType)) \(change.changedObjectID.entity.name) p\(change.changedObjectID.primaryKey)"
                        if let properties = change.updatedProperties { line += " [\(properties.sorted().joined(separator: ", "))]" }
                        if let tombstone = change.tombstone, !tombstone.isEmpty {
                            line += " tombstone " + tombstone.keys.sorted().map { "\($0)=\(tombstone[$0]!.anyValue ?? "nil")" }.joined(separator: " ")
                        }
                        print(line)
                    }
                }
            }
        }

        static func name(_ type: PersistentHistoryChange.ChangeType) -> String {
            switch type {
            case .insert: "insert"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    /// `nimbus store purge-history <store> --before TOKEN [--force]`.
    struct PurgeHistory: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge-history",
            abstract: "Delete persistent history up to and including a token.",
            discussion: "Refused when a registered consumer has not read that far, unless --force.")

        @Argument(help: "The store file or device folder.") var store: String
        @Option(help: "Purge transactions up to and including this token (<store UUID>:<transaction>).") var before: String
        @Flag(help: "Purge even history registered consumers have not read.") var force = false
        @Flag(help: "Print the result as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store)
                var request = PersistentHistoryChangeRequest.deleteHistory(before: try PersistentHistoryToken(string: before))
                request.ignoresConsumers = force
                let count = try session.context.performAndWait { try session.context.execute(request).count }
                print(json ? try ObjectJSON.serialize(["purged": count]) : "purged \(count) transaction(s)")
            }
        }
    }
}
