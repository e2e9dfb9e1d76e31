import Foundation
import Nimbus

/// Parses `key=value` arguments by each attribute's type, as the CLI conventions say:
/// numbers as written, booleans true/false/YES/NO/1/0, dates in ISO 8601, UUIDs in their
/// string form, binary as `@path` or base64, strings as written or from a file (`@path`;
/// `@@text` for a string that starts with `@`), an empty value as the empty string;
/// relationships as object URIs (comma-separated for to-many), `Entity[key=value]` or a
/// predicate on the destination entity, resolved in the store (``RelationshipValue``).
/// `key+=…` and `key-=…` add members to and remove members from a to-many relationship.
enum ValueParsing {
    /// One `key=value`, `key+=value` or `key-=value`.
    struct Assignment {
        enum Operation { case set, add, remove }
        var key: String
        var operation: Operation
        var value: String
    }

    static func assignments(_ arguments: [String]) throws -> [Assignment] {
        try arguments.map { argument in
            guard let equals = argument.firstIndex(of: "=") else {
                throw CLIError("expected key=value, key+=value or key-=value, got '\(argument)'")
            }
            var key = String(argument[..<equals])
            var operation = Assignment.Operation.set
            if key.hasSuffix("+") { operation = .add; key.removeLast() } else if key.hasSuffix("-") { operation = .remove; key.removeLast() }
            guard !key.isEmpty else { throw CLIError("expected key=value, got '\(argument)' (the key is empty)") }
            return Assignment(key: key, operation: operation, value: String(argument[argument.index(after: equals)...]))
        }
    }

    static func value(_ text: String, for attribute: AttributeDescription, entity: String) throws -> Any {
        func bad(_ what: String) -> CLIError {
            CLIError("\(entity).\(attribute.name) is \(attribute.type.rawValue): '\(text)' is not \(what)")
        }
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            guard let value = Int64(text) else { throw bad("an integer") }
            return value
        case .double, .float:
            guard let value = Double(text) else { throw bad("a number") }
            return value
        case .decimal:
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), Double(text) != nil else { throw bad("a decimal number") }
            return value
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: throw bad("a boolean (true/false/YES/NO/1/0)")
            }
        case .date:
            guard let date = parseDate(text) else { throw bad("an ISO 8601 date such as 2024-02-01T00:00:00Z") }
            return date
        case .uuid:
            guard let uuid = UUID(uuidString: text) else { throw bad("a UUID") }
            return uuid
        case .uri:
            guard let url = URL(string: text), url.scheme != nil else { throw bad("a URL") }
            return url
        case .binaryData, .transformable:
            if text.hasPrefix("@") {
                let path = String(text.dropFirst())
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CLIError("\(entity).\(attribute.name): cannot read file \(path)")
                }
                return data
            }
            guard let data = Data(base64Encoded: text) else { throw bad("base64 or @path") }
            return data
        case .string:
            if text.hasPrefix("@@") { return String(text.dropFirst()) }
            if text.hasPrefix("@") {
                let path = String(text.dropFirst())
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CLIError("\(entity).\(attribute.name): cannot read file \(path) (write @@… for a string that starts with @)")
                }
                guard let string = String(data: data, encoding: .utf8) else {
                    throw CLIError("\(entity).\(attribute.name): the file \(path) is not UTF-8 text")
                }
                return string
            }
            return text
        }
    }

    static func parseDate(_ text: String) -> Date? { DateText.date(from: text) }

    /// Applies assignments to an object: attributes by type, relationships by
    /// ``RelationshipValue`` (resolved once per assignment, for the first object, and reused).
    static func apply(_ assignments: [Assignment], to object: ManagedObject, session: StoreSession,
                      resolved: inout [Int: [ManagedObject]]) throws {
        let entity = object.entity
        for (index, assignment) in assignments.enumerated() {
            let key = assignment.key
            guard let property = entity.property(named: key) else {
                let known = entity.properties.map(\.name).joined(separator: ", ")
                throw CLIError("\(entity.name) has no property '\(key)' (properties: \(known))")
            }
            switch property {
            case let .attribute(attribute):
                guard assignment.operation == .set else {
                    throw CLIError("\(entity.name).\(key) is an attribute: += and -= add and remove members of a to-many relationship; use \(key)=value")
                }
                try object.setValidatedValue(try value(assignment.value, for: attribute, entity: entity.name), forKey: key)
            case let .relationship(relationship):
                let objects: [ManagedObject]
                if let known = resolved[index] { objects = known } else {
                    objects = try RelationshipValue.objects(assignment.value, for: relationship, of: entity, session: session)
                    resolved[index] = objects
                }
                try RelationshipValue.apply(assignment.operation, objects, to: object, relationship: relationship)
            }
        }
    }
}
