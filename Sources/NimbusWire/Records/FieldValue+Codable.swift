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
        case "double": self = .double(try container.decode(Double.self, forKey: .value))
        case "bool": self = .bool(try container.decode(Bool.self, forKey: .value))
        case "date":
            let seconds = try container.decode(Double.self, forKey: .value)
            self = .date(Date(timeIntervalSince1970: seconds))
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

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(typeName, forKey: .type)
        switch self {
        case .string(let value): try container.encode(value, forKey: .value)
        case .int64(let value): try container.encode(value, forKey: .value)
        case .double(let value): try container.encode(value, forKey: .value)
        case .bool(let value): try container.encode(value, forKey: .value)
        case .date(let value): try container.encode(value.timeIntervalSince1970, forKey: .value)
        case .bytes(let value): try container.encode(value.base64EncodedString(), forKey: .value)
        case .asset(let value): try container.encode(value, forKey: .value)
        case .reference(let value): try container.encode(value, forKey: .value)
        case .list(let value): try container.encode(value, forKey: .value)
        }
    }
}
