import Foundation

extension FieldValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case type
        case value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "string": self = .string(try container.decode(String.self, forKey: .value))
        case "int64": self = .int64(try container.decode(Int64.self, forKey: .value))
        case "double": self = .double(try Self.decodeNumber(container))
        case "bool": self = .bool(try container.decode(Bool.self, forKey: .value))
        case "date":
            self = .date(Date(timeIntervalSince1970: try Self.decodeNumber(container)))
        case "bytes":
            let text = try container.decode(String.self, forKey: .value)
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "bytes are not valid base64")
            }
            self = .bytes(data)
        case "asset": self = .asset(try container.decode(AssetReference.self, forKey: .value))
        case "reference": self = .reference(try container.decode(RecordReference.self, forKey: .value))
        case "list": self = .list(try container.decode([FieldValue].self, forKey: .value))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown field type '\(type)'")
        }
    }

    /// JSON has no infinities and no NaN: those travel as the strings `"inf"`, `"-inf"` and
    /// `"nan"` (see ``nonFiniteName(_:)``), so that every value a store holds can travel.
    private static func decodeNumber(_ container: KeyedDecodingContainer<CodingKeys>) throws -> Double {
        if let number = try? container.decode(Double.self, forKey: .value) { return number }
        let text = try container.decode(String.self, forKey: .value)
        guard let value = nonFinite(named: text) else {
            throw DecodingError.dataCorruptedError(forKey: .value, in: container,
                                                   debugDescription: "'\(text)' is not a number (nor inf, -inf or nan)")
        }
        return value
    }

    private static func encodeNumber(_ value: Double, _ container: inout KeyedEncodingContainer<CodingKeys>) throws {
        if let name = nonFiniteName(value) { try container.encode(name, forKey: .value) } else { try container.encode(value, forKey: .value) }
    }

    /// The wire name of a value JSON can't write as a number (`inf`, `-inf`, `nan`), or nil.
    public static func nonFiniteName(_ value: Double) -> String? {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return nil
    }

    /// The value a wire name of ``nonFiniteName(_:)`` stands for.
    public static func nonFinite(named name: String) -> Double? {
        switch name {
        case "inf": .infinity
        case "-inf": -.infinity
        case "nan": .nan
        default: nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(typeName, forKey: .type)
        switch self {
        case .string(let value): try container.encode(value, forKey: .value)
        case .int64(let value): try container.encode(value, forKey: .value)
        case .double(let value): try Self.encodeNumber(value, &container)
        case .bool(let value): try container.encode(value, forKey: .value)
        case .date(let value): try Self.encodeNumber(value.timeIntervalSince1970, &container)
        case .bytes(let value): try container.encode(value.base64EncodedString(), forKey: .value)
        case .asset(let value): try container.encode(value, forKey: .value)
        case .reference(let value): try container.encode(value, forKey: .value)
        case .list(let value): try container.encode(value, forKey: .value)
        }
    }
}
