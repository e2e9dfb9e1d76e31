import Foundation
import Nimbus

/// The model of the convergence test: posts with a to-one category and many-to-many tags
/// (tag names unique, so that tags made on two devices converge on one record).
/// Every object has a stable key (`title`, `name`) that the test never edits.
enum ConvergenceModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("body", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
                RelationshipDescription("category", to: "Category", inverse: "posts")
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
            }
            EntityDescription("Category") {
                AttributeDescription("name", .string)
                AttributeDescription("color", .string)
                RelationshipDescription("posts", to: "Post", inverse: "category", toMany: true)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("note", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
            }
        }
    }

    /// Writes the model as JSON (the format `nimbus device init --model` reads).
    static func write(to url: URL) throws {
        try JSONEncoder().encode(try make()).write(to: url)
    }
}

/// A replica's content by stable keys: `Entity/key` → field → value, with to-one values as the
/// related object's key (or `nil`) and many-to-many memberships as `Post/title/tags/name` → 1.
struct ReplicaContent: Equatable {
    var objects: [String: [String: String]] = [:]
    /// Object URIs, to write relationships with `nimbus store`.
    var uris: [String: String] = [:]
    /// Keys seen more than once (duplicates).
    var duplicates: [String] = []

    var posts: [String] { objects.keys.filter { $0.hasPrefix("Post/") }.sorted() }
    var categories: [String] { objects.keys.filter { $0.hasPrefix("Category/") }.sorted() }
    var tags: [String] { objects.keys.filter { $0.hasPrefix("Tag/") }.sorted() }

    /// Builds the content from `nimbus store fetch <Entity> --json` outputs (entity → JSON).
    init(fetched: [String: Data]) throws {
        var keyByURI: [String: String] = [:]
        var rows: [(entity: String, key: String, object: [String: Any])] = []
        for (entity, data) in fetched {
            guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
                throw TestFailure("nimbus store fetch \(entity) did not print a JSON array")
            }
            for object in array {
                let key = "\(entity)/\(object[entity == "Post" ? "title" : "name"] as? String ?? "?")"
                keyByURI[object["objectID"] as? String ?? ""] = key
                rows.append((entity, key, object))
            }
        }
        for (_, key, object) in rows {
            if objects[key] != nil { duplicates.append(key) }
            var fields: [String: String] = [:]
            for (name, value) in object where name != "objectID" {
                switch value {
                case let uris as [String]:
                    if name == "category" { fields[name] = uris.first.map { keyByURI[$0] ?? "dangling:\($0)" } ?? "nil" }
                    else { fields[name] = uris.map { keyByURI[$0] ?? "dangling:\($0)" }.sorted().joined(separator: ",") }
                case is NSNull: fields[name] = "nil"
                default: fields[name] = "\(value)"
                }
            }
            objects[key] = fields
            uris[key] = object["objectID"] as? String
        }
    }

    init() {}

    /// The replica without object URIs, for comparing replicas.
    var comparable: [String: [String: String]] { objects }
}

/// What the test did: every value written to every field, by which device, and whether as
/// part of an insert; every object deleted anywhere. The final state of every replica must
/// agree with it under the design's rules.
struct ConvergenceOracle {
    struct Write { var device: Int; var value: String; var isInsert: Bool }

    /// `Entity/key/field` (or `Post/title/tags/name` for a membership) → writes in order.
    private(set) var writes: [String: [Write]] = [:]
    private(set) var created: Set<String> = []
    private(set) var deleted: Set<String> = []

    /// Devices that inserted each object (more than one for a unique key made on several devices).
    private(set) var inserters: [String: Set<Int>] = [:]
    /// How many times each object was inserted (a unique key may be made again after a deletion).
    private(set) var insertions: [String: Int] = [:]

    mutating func insert(_ key: String, by device: Int, fields: [String: String], memberships: [String] = []) {
        created.insert(key)
        inserters[key, default: []].insert(device)
        insertions[key, default: 0] += 1
        for (field, value) in fields { writes["\(key)/\(field)", default: []].append(Write(device: device, value: value, isInsert: true)) }
        for tag in memberships { writes["\(key)/tags/\(tag)", default: []].append(Write(device: device, value: "1", isInsert: true)) }
    }

    mutating func update(_ key: String, field: String, to value: String, by device: Int) {
        writes["\(key)/\(field)", default: []].append(Write(device: device, value: value, isInsert: false))
    }

    mutating func delete(_ key: String) { deleted.insert(key) }

    /// The problems with a converged replica (empty when it is right).
    func check(_ replica: ReplicaContent) -> [String] {
        var problems: [String] = replica.duplicates.map { "duplicate object \($0)" }
        let alive = created.subtracting(deleted)
        // A unique-keyed object made more than once (on several devices, or again after a
        // deletion) and deleted somewhere may survive: an object made where the key's record
        // was unknown or deleted is a new object, named by the key's next generation
        // (decision 0014). Either way, replicas must agree.
        let undecided = deleted.filter { (insertions[$0] ?? 0) > 1 }
        for key in deleted.subtracting(undecided) where replica.objects[key] != nil { problems.append("\(key) was deleted but is present") }
        for key in alive where replica.objects[key] == nil { problems.append("\(key) was created, never deleted, and is missing") }
        for key in replica.objects.keys where !created.contains(key) { problems.append("\(key) was never created") }
        for (key, fields) in replica.objects {
            for (field, value) in fields where value.contains("dangling:") { problems.append("\(key).\(field) refers to a missing object: \(value)") }
        }
        for key in replica.posts where !deleted.contains(key) {
            for tag in (replica.objects[key]?["tags"] ?? "").split(separator: ",") where !tag.isEmpty {
                if writes["\(key)/tags/\(tag.dropFirst("Tag/".count))"]?.contains(where: { $0.value == "1" }) != true {
                    problems.append("\(key) is linked to \(tag), which no device linked")
                }
            }
        }
        for (path, writes) in writes {
            let parts = path.split(separator: "/").map(String.init)
            let key = "\(parts[0])/\(parts[1])"
            guard let object = replica.objects[key], !deleted.contains(key) || undecided.contains(key) else { continue }
            let actual: String
            var allowed = Set(writes.map(\.value))
            var expected: String?
            // The value a device meant, as it must read once deletions are applied.
            func resolved(_ value: String) -> String {
                if parts[2] == "category", value != "nil", deleted.contains("Category/\(value)") { return "nil" }
                return value
            }
            if parts.count == 4 {
                // A membership: present in the post's tags or not; a deleted tag is gone.
                guard !deleted.contains("Tag/\(parts[3])") || undecided.contains("Tag/\(parts[3])") else { continue }
                let tags = (object["tags"] ?? "").split(separator: ",").map(String.init)
                actual = tags.contains("Tag/\(parts[3])") ? "1" : "0"
                allowed.insert("0")
            } else {
                actual = parts[2] == "category" && object[parts[2]] != "nil" ? String(object[parts[2]]!.dropFirst("Category/".count)) : object[parts[2]] ?? "nil"
            }
            allowed = Set(allowed.map(resolved))
            let edits = writes.filter { !$0.isInsert }
            let inserts = writes.filter(\.isInsert)
            if !edits.isEmpty, Set(edits.map(\.device)).count == 1, inserts.count <= 1 {
                // Only one device edited this field after one device created it: that device saw
                // the insert before editing, so its last edit is the latest stamp and stands.
                expected = resolved(edits.last!.value)
            } else if edits.isEmpty, inserts.count == 1 {
                expected = resolved(inserts[0].value)
            }
            if undecided.contains(key) || (parts.count == 4 && undecided.contains("Tag/\(parts[3])")) { expected = nil }
            if !allowed.contains(actual) {
                problems.append("\(path) is \(actual), which no device wrote (written: \(writes.map { "d\($0.device)=\($0.value)" }))")
            } else if let expected, actual != expected {
                problems.append("\(path) is \(actual), but only d\(edits.first?.device ?? inserts[0].device) edited it, last to \(expected)")
            }
        }
        return problems
    }
}
