import Foundation
import Nimbus

extension StoreCommand.Fetch {
    /// The name of the group size in grouped results and in `--having`.
    static let countName = "count"

    /// `--group-by` (with `--having` and `--count`): a dictionary fetch grouped by the keys,
    /// as Core Data's `propertiesToGroupBy` and `havingPredicate` do it.
    func fetchGroups(_ objectRequest: FetchRequest<ManagedObject>, session: StoreSession) throws {
        guard !groupBy.isEmpty else { throw CLIError("--having needs --group-by KEY") }
        let entity = try session.model.entity(named: entity)
        for key in groupBy {
            let first = String(key.split(separator: ".").first ?? "")
            guard entity.propertiesByName[first] != nil else {
                throw CLIError("--group-by \(key): \(entity.name) has no property \(first)")
            }
        }
        var request = FetchRequest<[String: Any]>(entityName: entity.name)
        request.predicate = objectRequest.predicate
        request.fetchLimit = objectRequest.fetchLimit
        request.fetchOffset = objectRequest.fetchOffset
        request.sortDescriptors = objectRequest.sortDescriptors.isEmpty ? groupBy.map { FetchSortDescriptor($0) } : objectRequest.sortDescriptors
        var properties = groupBy.map(FetchProperty.property)
        if count {
            let size = QueryExpression.function("count:", [.keyPath(groupBy[0].split(separator: ".").map(String.init))])
            properties.append(.expression(name: Self.countName, size, type: .integer64))
        }
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy.map(FetchProperty.property)
        if let having {
            guard count || having.range(of: #"\bcount\b"#, options: .regularExpression) == nil else {
                throw CLIError("--having \"\(having)\" uses count: add --count so each group's size is fetched")
            }
            request.havingPredicate = try QueryPredicate(format: having)
        }
        try session.context.performAndWait { () throws in
            let groups = try session.context.fetch(request).map { group in
                var row: [String: Any] = [:]
                for property in properties { row[property.name] = ObjectJSON.json(group[property.name], type: nil) }
                return row
            }
            if json {
                print(try ObjectJSON.serialize(groups))
            } else {
                for group in groups { print(ObjectJSON.text(for: group)) }
            }
        }
    }
}
