import Foundation
import Nimbus
import struct NimbusWire.Record
import NimbusWire

/// Checks an incoming record against this device's model before anything of its page is
/// applied: what it cannot apply is quarantined with its reason (decision 0040), what belongs
/// to another store or to an entity the model retired is skipped.
extension PageApplier {
    /// What to do with an incoming record.
    enum Verdict {
        case apply
        /// Not this store's (an entity of another configuration, or one the model retired).
        case skip
        /// It can't be applied here; why.
        case quarantine(String)
    }

    /// Checks a record against the model before anything of the page is applied: its entity,
    /// each field's value and type, its references, a membership's relationship.
    func verdict(on record: Record, known: Known, model: ManagedObjectModel) -> Verdict {
        if record.recordType == MirroredModel.linkRecordType {
            guard let link = LinkRecord(record) else { return .quarantine("the membership record (CDMR) is malformed") }
            let entities = link.key.split(separator: "|").compactMap { $0.split(separator: ".").first.map(String.init) }
            if entities.contains(where: known.retired.contains) { return .skip }
            if !mirror.mirrored.linkKeys.contains(link.key) {
                if entities.count == 2, entities.allSatisfy({ model.entitiesByName[$0] != nil && mirror.mirrored.roles[$0] == nil }) {
                    return .skip   // another store's relationship
                }
                return .quarantine("the membership's relationship \(link.key) is not in this model")
            }
            return .apply
        }
        let row = known.rows[record.recordName]
        let named: String?
        if case let .string(name)? = record.fields[MirroredModel.entityNameField]?.value { named = name } else { named = nil }
        if let named {
            if known.retired.contains(named) { return .skip }
            guard let entity = model.entitiesByName[named] else { return .quarantine("the entity \(named) is not in this model") }
            guard mirror.mirrored.roles[named] != nil else { return .skip }
            guard MirroredModel.recordType(for: entity) == record.recordType else {
                return .quarantine("a \(record.recordType) record names the entity \(named), whose records are \(MirroredModel.recordType(for: entity))")
            }
        }
        guard let entity = self.entity(of: record, known: row, model: model) else {
            return row == nil && named == nil ? .skip : .quarantine("the record's entity is not in this store")
        }
        for (name, role) in mirror.mirrored.roles[entity.name] ?? [:] {
            switch role {
            case let .attribute(attribute):
                if let field = record.fields[MirroredModel.fieldName(name)], field.value.map({ if case .asset = $0 { false } else { true } }) ?? false {
                    do { _ = try FieldConversion.propertyValue(field.value, for: attribute) } catch {
                        return .quarantine("\(error)")
                    }
                }
                if case .asset? = record.fields[MirroredModel.assetFieldName(name)]?.value, ![.string, .binaryData, .transformable].contains(attribute.type) {
                    return .quarantine("field \(MirroredModel.assetFieldName(name)) holds an asset, which can't be a \(attribute.type.rawValue) value")
                }
            case .toOne:
                if let field = record.fields[MirroredModel.fieldName(name)], let value = field.value {
                    guard case let .string(target) = value, !target.isEmpty else {
                        return .quarantine("field \(MirroredModel.fieldName(name)) holds a \(value.typeName), which can't name a related record")
                    }
                }
            case .carriedByInverse, .manyToMany:
                continue
            }
        }
        return .apply
    }

    /// The names of the records a record's to-one fields refer to.
    func references(of record: Record) -> [String] {
        guard let entity = entity(of: record, known: nil, model: context.managedObjectModel) else { return [] }
        return (mirror.mirrored.roles[entity.name] ?? [:]).compactMap { name, role in
            guard case .toOne = role, case let .string(target)? = record.fields[MirroredModel.fieldName(name)]?.value else { return nil }
            return target
        }
    }

    func entity(of record: Record, known: SyncMetadata.RecordRow?, model: ManagedObjectModel) -> EntityDescription? {
        if case let .string(name)? = record.fields[MirroredModel.entityNameField]?.value ?? known?.ancestor?.fields[MirroredModel.entityNameField]?.value,
           let entity = model.entitiesByName[name], mirror.mirrored.roles[name] != nil {
            return entity
        }
        if let row = known { return mirror.store.entity(number: row.entity) }
        return nil
    }
}
