/// The names a model may use, checked when it loads (built in code, decoded from a store's
/// model cache, or read from Xcode): names become SQL identifiers (`Z<NAME>` tables and
/// columns, after upper-casing) and parts of object URIs (`x-coredata://<store>/<Entity>/p1`).
///
/// A name starts with an ASCII letter and holds only ASCII letters, digits and underscores,
/// as Xcode's model editor requires; names that upper-case to one table or one column are
/// refused. See `docs/decisions/0013-identifier-quoting.md`.
enum ModelNameRules {
    /// Whether a name is one a model may use.
    static func isValid(_ name: String) -> Bool {
        var utf8 = name.utf8.makeIterator()
        guard let first = utf8.next(), isLetter(first) else { return false }
        while let byte = utf8.next() {
            guard isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") else { return false }
        }
        return true
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// Appends every naming problem of the entities to `problems`.
    static func check(_ entities: [EntityDescription], problems: inout [String]) {
        let rule = "names start with a letter and hold only ASCII letters, digits and underscores, "
            + "since they become SQL table and column names and parts of object URIs; rename it"
        func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        var byName: [String: EntityDescription] = [:]
        var tables: [String: [String]] = [:]
        for entity in entities {
            byName[entity.name] = entity
            if !entity.name.isEmpty && !isValid(entity.name) {
                problems.append("entity name \(quoted(entity.name)) is not allowed: \(rule)")
            }
            tables[entity.name.uppercased(), default: []].append(entity.name)
            for property in entity.declaredAttributes.map(\.name) + entity.declaredRelationships.map(\.name)
            where !property.isEmpty && !isValid(property) {
                problems.append("property name \(quoted(property)) of entity \(quoted(entity.name)) is not allowed: \(rule)")
            }
            for index in entity.fetchIndexes where !isValid(index.name) {
                problems.append("fetch index name \(quoted(index.name)) of entity \(quoted(entity.name)) is not allowed: \(rule)")
            }
        }
        for (upper, names) in tables where Set(names).count > 1 {
            problems.append("entities \(Set(names).sorted().joined(separator: ", ")) all map to the table Z\(upper); rename all but one")
        }
        // Properties of one entity, inherited ones included, that map to one column.
        for entity in entities {
            var columns: [String: [String]] = [:]
            var current: EntityDescription? = entity
            var seen: Set<String> = []
            while let e = current, seen.insert(e.name).inserted {
                for name in e.declaredAttributes.map(\.name) + e.declaredRelationships.map(\.name) {
                    columns[name.uppercased(), default: []].append(name)
                }
                current = e.superentityName.flatMap { byName[$0] }
            }
            for (upper, names) in columns.sorted(by: { $0.key < $1.key }) where Set(names).count > 1 {
                problems.append("properties \(Set(names).sorted().joined(separator: ", ")) of entity \(entity.name) all map to the column Z\(upper); rename all but one")
            }
        }
    }
}
