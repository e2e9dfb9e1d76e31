import Foundation
import NimbusWire

/// Names are compared in Unicode Normalization Form C: every name that reaches the server
/// (containers, zones, owners, record names and types, field keys, references, share
/// participants) is converted to NFC at the API boundary, so storage, which compares bytes,
/// and Swift, which compares canonically, agree (see `docs/decisions/server-0010-unicode-names.md`).
///
/// For example:
/// ```swift
/// "cafe\u{301}".nfc.utf8.count   // 5: "caf\u{E9}"
/// ```
extension String {
    /// The string in Unicode Normalization Form C; ASCII is returned as is.
    package var nfc: String {
        utf8.allSatisfy({ $0 < 0x80 }) ? self : precomposedStringWithCanonicalMapping
    }
}

extension ModifyRecordsRequest {
    /// The batch with every name, type, field key and reference in NFC.
    package func normalizingNames() -> ModifyRecordsRequest {
        var request = self
        request.saves = saves.map { $0.normalizingNames() }
        request.deletions = deletions.map { RecordDeletion(recordName: $0.recordName.nfc, stamp: $0.stamp) }
        return request
    }
}

extension Record {
    /// The record with its name, type, field keys and references in NFC.
    package func normalizingNames() -> Record {
        var record = self
        record.recordName = recordName.nfc
        record.recordType = recordType.nfc
        var fields: [String: Field] = [:]
        fields.reserveCapacity(self.fields.count)
        for (key, field) in self.fields {
            var field = field
            field.value = field.value?.normalizingReferences()
            fields[key.nfc] = field
        }
        record.fields = fields
        return record
    }
}

extension FieldValue {
    /// The value with the record names of its references in NFC.
    func normalizingReferences() -> FieldValue {
        switch self {
        case .reference(let reference): .reference(RecordReference(recordName: reference.recordName.nfc, action: reference.action))
        case .list(let values): .list(values.map { $0.normalizingReferences() })
        default: self
        }
    }
}
