import ArgumentParser
import Foundation
import Nimbus

extension StoreCommand {
    /// `nimbus store fetch <store> <Entity> [--predicate P] [--sort KEY[:desc]] [--limit N]
    /// [--properties a,b] [--group-by KEY …] [--having P] [--count] [--json]`.
    ///
    /// With `--group-by`, one result per group: the group's keys (and with `--count` its
    /// size as `count`), the seed's duplicate finder:
    /// `nimbus store fetch s.sqlite Person --group-by email --having "count > 1" --count --json`.
    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch objects matching a predicate.",
            discussion: """
                Prints one object per line, or with --json an array of objects: attribute names as keys, \
                relationships as arrays of object URIs, plus objectID. Dates print in ISO 8601 with \
                fractional seconds (as many digits as the stored value needs), binary as base64.
                """)

        @Argument(help: "The store file or device folder.") var store: String
        @Argument(help: "The entity name.") var entity: String
        @Option(help: "A predicate in Core Data's format, e.g. \"age > 30 AND name BEGINSWITH[c] 'a'\".") var predicate: String?
        @Option(name: .customLong("arg"), help: "A value for the predicate's next %@, in order: uri:x-coredata://… (an object), string:, int:, double:, bool:, date: (ISO 8601), uuid:, or nil.")
        var arguments: [String] = []
        @Option(help: "Sort by KEY, KEY:desc or KEY:asc; repeat for more keys. With --group-by and --count, `count` sorts by group size.") var sort: [String] = []
        @Option(help: "The most objects to return.") var limit: Int?
        @Option(help: "How many objects to skip.") var offset: Int?
        @Option(name: .customLong("group-by"), help: "Group by KEY (a property or to-one key path); repeat for more keys.") var groupBy: [String] = []
        @Option(help: "With --group-by: keep groups matching this predicate; `count` names the group's size.") var having: String?
        @Flag(help: "Print only the number of matching objects; with --group-by, each group's size as `count`.") var count = false
        @Option(help: "Print only these properties (comma-separated attribute and relationship names; objectID is always printed).")
        var properties: String?
        @Option(help: "The model to open the store with (.xcdatamodeld, .xcdatamodel or .json), for a store whose model the file does not keep in a form Nimbus reads: one Apple's Core Data wrote.") var model: String?
        @Flag(help: "Print the results as JSON.") var json = false

        func run() throws {
            try reportingErrors {
                let session = try StoreSession(path: store, readOnly: true, modelPath: model)
                var request = FetchRequest<ManagedObject>(entityName: entity)
                request.predicate = try session.predicate(predicate, arguments: arguments)
                request.sortDescriptors = try sort.map(Self.sortDescriptor)
                if let limit {
                    guard limit >= 0 else { throw CLIError("--limit must be 0 or more") }
                    request.fetchLimit = limit
                }
                if let offset {
                    guard offset >= 0 else { throw CLIError("--offset must be 0 or more") }
                    request.fetchOffset = offset
                }
                let chosen = try chosenProperties(session.model)
                if !groupBy.isEmpty || having != nil {
                    guard chosen == nil else { throw CLIError("--properties does not apply with --group-by: the group keys are what is printed") }
                    try fetchGroups(request, session: session)
                    return
                }
                try session.context.performAndWait { () throws in
                    if count {
                        let total = try session.context.count(for: request)
                        print(json ? try ObjectJSON.serialize(["count": total]) : "\(total)")
                        return
                    }
                    request.returnsObjectsAsFaults = false
                    let objects = try session.context.fetch(request).map { ObjectJSON.dictionary(for: $0, properties: chosen) }
                    if json {
                        print(try ObjectJSON.serialize(objects))
                    } else {
                        for object in objects { print(ObjectJSON.text(for: object)) }
                    }
                }
            }
        }

        /// The names `--properties` chooses, each checked against the entity.
        func chosenProperties(_ model: ManagedObjectModel) throws -> Set<String>? {
            guard let properties else { return nil }
            let entity = try model.entity(named: self.entity)
            let names = properties.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw CLIError("--properties needs at least one property name") }
            let known = Set(entity.properties.filter { !$0.isTransient }.map(\.name))
            let unknown = names.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw CLIError("--properties: \(entity.name) has no property \(unknown.joined(separator: ", ")) (properties: \(known.sorted().joined(separator: ", ")))")
            }
            return Set(names)
        }

        static func sortDescriptor(_ text: String) throws -> FetchSortDescriptor {
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard let key = parts.first, !key.isEmpty else { throw CLIError("--sort needs a key, as KEY or KEY:desc") }
            switch parts.count == 2 ? parts[1].lowercased() : "asc" {
            case "asc": return FetchSortDescriptor(key)
            case "desc": return FetchSortDescriptor(key, ascending: false)
            default: throw CLIError("--sort \(text): the order must be asc or desc")
            }
        }
    }
}
