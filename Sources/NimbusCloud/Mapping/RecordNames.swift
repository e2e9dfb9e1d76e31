import Crypto
import Foundation
import Nimbus
import NimbusWire

/// Record names: a random UUID per object, except where the model says what makes an
/// object unique; there the name derives from the unique key (a name-based UUID), so that
/// two devices creating "the same" object converge on one record.
enum RecordNames {
    static func random() -> String { UUID().uuidString }

    /// A name-based UUID (SHA-256 of the text, version and variant bits set).
    static func derived(from text: String) -> String {
        var bytes = Array(SHA256.hash(data: Data(text.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString
    }

    /// The name of an object of an entity with a uniqueness constraint, from the values of
    /// its first constraint; `nil` when the entity has none or a value is missing.
    /// `generation` counts earlier objects of the same key that were deleted: a deleted
    /// record's name stays a tombstone on the server, so the key's next object takes the next
    /// generation (every device that knows of the deletion derives the same one).
    static func uniqueName(entity: EntityDescription, values: [String: PropertyValue], generation: Int = 0) -> String? {
        guard let constraint = entity.rootEntity.uniquenessConstraints.first ?? entity.uniquenessConstraints.first else { return nil }
        var parts = ["nimbus-unique", entity.rootEntity.name]
        for key in constraint {
            guard let value = values[key], !value.isNull, let field = FieldConversion.fieldValue(value) else { return nil }
            parts.append("\(key)=\(field.typeName):\(canonical(field))")
        }
        if generation > 0 { parts.append("generation=\(generation)") }
        return derived(from: parts.joined(separator: "\u{1F}"))
    }

    /// The name of the `CDMR` record linking two records through a many-to-many relationship.
    static func linkName(relationship key: String, first: String, second: String) -> String {
        derived(from: ["nimbus-cdmr", key, first, second].joined(separator: "\u{1F}"))
    }

    private static func canonical(_ value: FieldValue) -> String {
        switch value {
        case let .string(v): v
        case let .int64(v): String(v)
        case let .double(v): String(v)
        case let .bool(v): v ? "1" : "0"
        case let .date(v): String(v.timeIntervalSince1970)
        case let .bytes(v): v.base64EncodedString()
        default: String(describing: value)
        }
    }
}
