import Foundation
import Nimbus

/// Parses `key=value` arguments by each attribute's type, as the CLI conventions say:
/// numbers as written, booleans true/false/YES/NO/1/0, dates in ISO 8601, UUIDs in their
/// string form, binary as `@path` or base64, an empty value as the empty string;
/// relationships as object URIs (comma-separated for to-many).
enum ValueParsing {
    static func assignments(_ arguments: [String]) throws -> [(key: String, value: String)] {
        try arguments.map { argument in
            guard let equals = argument.firstIndex(of: "=") else {
                throw CLIError("expected key=value, got '\(argument)'")
            }
            let key = String(argument[..<equals])
            guard !key.isEmpty else { throw CLIError("expected key=value, got '\(argument)' (the key is empty)") }
            return (key, String(argument[argument.index(after: equals)...]))
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
            return text
        }
    }

    static func parseDate(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withFullDate]
        return full.date(from: text)
    }

    /// Applies assignments to an object: attributes by type, relationships by URI.
    static func apply(_ assignments: [(key: String, value: String)], to object: ManagedObject, session: StoreSession) throws {
        let entity = object.entity
        for (key, text) in assignments {
            guard let property = entity.property(named: key) else {
                let known = entity.properties.map(\.name).joined(separator: ", ")
                throw CLIError("\(entity.name) has no property '\(key)' (properties: \(known))")
            }
            switch property {
            case let .attribute(attribute):
                try object.setValidatedValue(try value(text, for: attribute, entity: entity.name), forKey: key)
            case let .relationship(relationship):
                let uris = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                let objects = try uris.map { uri -> ManagedObject in
                    guard let url = URL(string: uri), let id = session.coordinator.managedObjectID(forURIRepresentation: url) else {
                        throw CLIError("\(entity.name).\(key): '\(uri)' is not an object URI of this store")
                    }
                    return try session.context.existingObject(with: id)
                }
                if relationship.isToMany {
                    try object.setValidatedValue(relationship.isOrdered ? objects as Any : Set(objects) as Any, forKey: key)
                } else {
                    guard objects.count <= 1 else { throw CLIError("\(entity.name).\(key) is to-one; give one object URI") }
                    try object.setValidatedValue(objects.first, forKey: key)
                }
            }
        }
    }
}
