import Crypto
import Foundation
import Nimbus
import NimbusWire

/// Builds outgoing records from the current rows of objects: only the fields edited locally
/// (each with the stamp of its edit), values over the asset threshold moved to
/// `CD_<name>_ckAsset` assets, and to-one relationships as the related record's name.
///
/// Runs on the export context's queue.
struct RecordBuilder {
    /// Values larger than this go to an asset (as Core Data's mirroring does).
    static let assetThreshold = 750 * 1024
    /// Records are kept under this many bytes as the server measures them (their JSON, binary
    /// as base64); the largest values move to assets first. The margin leaves room for the
    /// change tag and the asset references that replace the values.
    static let recordBudget = ModifyRecordsRequest.maximumRecordBytes - 32 * 1024

    let mirrored: MirroredModel

    /// An outgoing record and the asset bytes it refers to, by checksum.
    struct Outgoing {
        var record: Record
        var assets: [String: Data]
        /// The stamps sent, by property name (what the server's confirmation covers).
        var sentStamps: [String: HLCStamp]
    }

    /// Builds the record of `object` with the fields named in `pending`.
    /// - Parameters:
    ///   - recordName: Record names of related objects (and of `object`).
    ///   - isElsewhere: Whether a related object is in another zone: a reference to it is not
    ///     sent (the link stays on this device; decision 0070).
    func record(for object: ManagedObject, name: String, pending: [String: HLCStamp],
                recordName: (ManagedObjectID) throws -> String?,
                isElsewhere: (ManagedObjectID) throws -> Bool = { _ in false }) throws -> Outgoing {
        let entity = object.entity
        var record = Record(recordName: name, recordType: MirroredModel.recordType(for: entity))
        var assets: [String: Data] = [:]
        var large: [(name: String, bytes: Data, stamp: HLCStamp)] = []
        for (property, stamp) in pending {
            if property == PendingFields.entityKey {
                record.fields[MirroredModel.entityNameField] = Field(.string(entity.name), stamp: stamp)
                continue
            }
            switch mirrored.role(of: property, in: entity) {
            case .attribute?:
                let value = object.primitiveValue(forKey: property) ?? .null
                if let bytes = FieldConversion.assetBytes(value), bytes.count > Self.assetThreshold {
                    large.append((property, bytes, stamp))
                } else {
                    let field = FieldConversion.fieldValue(value)
                    record.fields[MirroredModel.fieldName(property)] = Field(field, stamp: stamp)
                }
            case .toOne?:
                let destination = (object.value(forKey: property) as? ManagedObject)?.objectID
                if let destination, try isElsewhere(destination) { continue }
                let value = try destination.flatMap { try recordName($0) }.map(FieldValue.string)
                record.fields[MirroredModel.fieldName(property)] = Field(value, stamp: stamp)
            default:
                continue
            }
        }
        // Keep the record under the server's limit as it is sent (binary travels as base64,
        // strings escaped): the largest inline values move to assets until it fits.
        // Encoding measures exactly but costs a record's JSON: only records that could be over
        // (by a bound no encoding exceeds) are measured.
        var size = Self.encodedSizeBound(of: record) > Self.recordBudget ? Self.encodedSize(of: record) : 0
        while size > Self.recordBudget {
            let movable = record.fields.compactMap { key, field -> (key: String, property: String, size: Int)? in
                guard key.hasPrefix("CD_"), !key.hasSuffix("_ckAsset"), field.value != nil else { return nil }
                let property = String(key.dropFirst(3))
                guard case .attribute? = mirrored.role(of: property, in: entity),
                      let value = object.primitiveValue(forKey: property), FieldConversion.assetBytes(value) != nil else { return nil }
                return (key, property, Self.encodedSize(of: field))
            }
            guard let largest = movable.max(by: { ($0.size, $0.key) < ($1.size, $1.key) }),
                  let field = record.fields[largest.key],
                  let bytes = object.primitiveValue(forKey: largest.property).flatMap(FieldConversion.assetBytes) else { break }
            large.append((largest.property, bytes, field.stamp))
            record.fields[largest.key] = nil
            size = Self.encodedSize(of: record)
        }
        for item in large {
            let checksum = SHA256.hash(data: item.bytes).map { String(format: "%02x", $0) }.joined()
            assets[checksum] = item.bytes
            record.fields[MirroredModel.assetFieldName(item.name)] = Field(.asset(AssetReference(checksum: checksum, size: Int64(item.bytes.count))), stamp: item.stamp)
            record.fields[MirroredModel.fieldName(item.name)] = Field(nil, stamp: item.stamp)
        }
        return Outgoing(record: record, assets: assets, sentStamps: pending)
    }

    /// A bound on a record's encoded size, without encoding it: strings at six bytes per
    /// UTF-8 byte (`\uXXXX` escapes), binary as base64, anything else generously.
    static func encodedSizeBound(of record: Record) -> Int {
        func bound(_ value: FieldValue?) -> Int {
            switch value {
            case let .string(text)?: text.utf8.count * 6 + 2
            case let .bytes(data)?: (data.count + 2) / 3 * 4 + 2
            case let .list(values)?: values.reduce(2) { $0 + bound($1) + 1 }
            default: 512
            }
        }
        return record.fields.reduce(4096 + record.recordName.utf8.count * 6) { total, entry in
            total + entry.key.utf8.count * 6 + 256 + bound(entry.value.value)
        }
    }

    /// The size of a value as the server measures records: its JSON from `JSONEncoder`.
    static func encodedSize(of value: some Encodable) -> Int {
        (try? JSONEncoder().encode(value).count) ?? Int.max
    }

    /// The `CDMR` record of one many-to-many membership.
    static func linkRecord(key: String, first: (entity: String, name: String), second: (entity: String, name: String),
                           linked: Bool, stamp: HLCStamp) -> Record {
        let relationships = key.split(separator: "|").map { String($0.split(separator: ".").last ?? "") }
        var record = Record(recordName: RecordNames.linkName(relationship: key, first: first.name, second: second.name),
                            recordType: MirroredModel.linkRecordType)
        record.fields["CD_entityNames"] = Field(.list([.string(first.entity), .string(second.entity)]), stamp: stamp)
        record.fields["CD_recordNames"] = Field(.list([.string(first.name), .string(second.name)]), stamp: stamp)
        record.fields["CD_relationships"] = Field(.list(relationships.map(FieldValue.string)), stamp: stamp)
        record.fields["CD_relationshipKey"] = Field(.string(key), stamp: stamp)
        record.fields["CD_linked"] = Field(.bool(linked), stamp: stamp)
        return record
    }
}
