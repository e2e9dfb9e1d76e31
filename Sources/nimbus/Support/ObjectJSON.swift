import Foundation
import Nimbus
import NimbusWire

/// Fetch results as the CLI prints them: attribute names as keys, relationships as arrays
/// of object URIs, plus `objectID`.
enum ObjectJSON {
    /// - Parameter properties: The names to print (all persistent properties when `nil`).
    static func dictionary(for object: ManagedObject, properties: Set<String>? = nil) -> [String: Any] {
        var result: [String: Any] = ["objectID": object.objectID.uriRepresentation().absoluteString]
        for property in object.entity.properties where !property.isTransient && properties?.contains(property.name) != false {
            switch property {
            case let .attribute(attribute):
                result[attribute.name] = json(object.value(forKey: attribute.name), type: attribute.type)
            case let .relationship(relationship):
                let objects: [ManagedObject]
                if relationship.isToMany {
                    if relationship.isOrdered { objects = object.value(forKey: relationship.name) as? [ManagedObject] ?? [] }
                    else { objects = (object.value(forKey: relationship.name) as? Set<ManagedObject> ?? []).sorted { $0.objectID < $1.objectID } }
                } else {
                    objects = (object.value(forKey: relationship.name) as? ManagedObject).map { [$0] } ?? []
                }
                result[relationship.name] = objects.map { $0.objectID.uriRepresentation().absoluteString }
            }
        }
        return result
    }

    /// A JSON-compatible value: numbers, strings, booleans, ISO 8601 dates with fractional
    /// seconds (``DateText``), base64 data.
    static func json(_ value: Any?, type: AttributeType?) -> Any {
        switch value {
        case nil: return NSNull()
        case let date as Date: return DateText.string(from: date)
        case let data as Data: return data.base64EncodedString()
        case let uuid as UUID: return uuid.uuidString
        case let url as URL: return url.absoluteString
        case let decimal as Decimal: return NSDecimalNumber(decimal: decimal)
        case let id as ManagedObjectID: return id.uriRepresentation().absoluteString
        case let bool as Bool: return bool
        case let int as Int16: return Int(int)
        case let int as Int32: return Int(int)
        case let int as Int64: return int
        case let float as Float: return Double(float)
        case let value?: return value
        }
    }

    static func serialize(_ value: Any) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(JSONValue(value)), as: UTF8.self)
        // Foundation on Linux pretty-prints empty containers over three lines.
        return text.replacingOccurrences(of: #"\[\s*\n\s*\n\s*\]"#, with: "[]", options: .regularExpression)
            .replacingOccurrences(of: #"\{\s*\n\s*\n\s*\}"#, with: "{}", options: .regularExpression)
    }

    /// One line per object for people: `objectID  key=value …`.
    static func text(for dictionary: [String: Any]) -> String {
        var parts: [String] = []
        if let id = dictionary["objectID"] { parts.append("\(id)") }
        for key in dictionary.keys.sorted() where key != "objectID" {
            let value = dictionary[key]!
            switch value {
            case is NSNull: continue
            case let array as [Any]: parts.append("\(key)=[\(array.map { "\($0)" }.joined(separator: ", "))]")
            default: parts.append("\(key)=\(value)")
            }
        }
        return parts.joined(separator: "  ")
    }
}

/// A JSON value built from the dictionaries and arrays the CLI prints.
enum JSONValue: Encodable {
    case null, bool(Bool), int(Int64), double(Double), number(Decimal), string(String)
    case array([JSONValue]), object([String: JSONValue])

    init(_ value: Any) {
        switch value {
        case is NSNull: self = .null
        case let v as Bool: self = .bool(v)
        case let v as Int: self = .int(Int64(v))
        case let v as Int64: self = .int(v)
        case let v as Double: self = .double(v)
        case let v as NSDecimalNumber: self = .number(v.decimalValue)
        case let v as Decimal: self = .number(v)
        case let v as String: self = .string(v)
        case let v as [Any]: self = .array(v.map(JSONValue.init))
        case let v as [String: Any]: self = .object(v.mapValues(JSONValue.init))
        default: self = .string("\(value)")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(v): try container.encode(v)
        case let .int(v): try container.encode(v)
        // JSON has no infinities or NaN: written as the strings "inf", "-inf" and "nan" (a
        // double attribute's value read back from --json knows its type).
        case let .double(v): if let name = FieldValue.nonFiniteName(v) { try container.encode(name) } else { try container.encode(v) }
        case let .number(v): try container.encode(v)
        case let .string(v): try container.encode(v)
        case let .array(v): try container.encode(v)
        case let .object(v): try container.encode(v)
        }
    }
}
