import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// Unique keys that change: when two records claim one unique key (an object renamed on one
/// device while another created the same key, or a key edited and made again), every device
/// keeps the same record — ``PageApplier/survivor(_:_:key:)`` — merges the other's values
/// and relationships into it by their stamps, and deletes the other record, so that the
/// replicas converge and sync never stops on a uniqueness conflict.
extension PageApplier {
    /// One side of a unique-key collision: a local object, its record name (nil for an object
    /// not sent yet), and what it holds with stamps.
    struct KeyClaim {
        var object: ManagedObject
        var name: String?
        var ancestor: Record?
        var pending: [String: HLCStamp]
    }

    /// What a merge leaves to write in the import's transaction.
    struct KeyMerge {
        /// The object that keeps the key, and the fields it takes from the other (stamped as
        /// they were: the other record goes, so its values travel in this one).
        var winner: ManagedObjectID
        var winnerFields: [String: HLCStamp]
        /// Objects whose to-one relationship now points at the winner (sent as fresh edits).
        var memberFields: [(ManagedObjectID, String)]
        /// Many-to-many memberships the winner took over (sent as fresh links).
        var links: [(key: String, first: ManagedObjectID, second: ManagedObjectID)]
        /// The object merged away (deleted here; its record's deletion goes out).
        var loser: ManagedObjectID
    }

    /// Which of two record names claiming one unique key keeps it, the same on every device:
    /// a name not sent yet loses to a sent one; the key's own derived name (generation 0)
    /// wins; otherwise the smaller name.
    static func survivor(_ a: String?, _ b: String?, key: String?) -> String? {
        guard let a else { return b }
        guard let b else { return a }
        if a == key { return a }
        if b == key { return b }
        return min(a, b)
    }

    /// The values of an object's unique key.
    func uniqueValues(of object: ManagedObject) -> [String: PropertyValue] {
        var values: [String: PropertyValue] = [:]
        for key in object.entity.rootEntity.uniquenessConstraints.first ?? [] { values[key] = object.primitiveValue(forKey: key) ?? .null }
        return values
    }

    /// Another local object with the unique key `object` holds now (unsaved changes included).
    func keyTwin(of object: ManagedObject) throws -> ManagedObject? {
        let entity = object.entity.rootEntity
        guard let constraint = entity.uniquenessConstraints.first, !constraint.isEmpty else { return nil }
        var format: [String] = ["SELF != %@"]
        var arguments: [Any?] = [object]
        for key in constraint {
            guard let attribute = entity.attributesByName[key] else { return nil }
            let value = object.primitiveValue(forKey: key) ?? .null
            if value.isNull { return nil }
            format.append("%K == %@")
            arguments += [key, value.anyValue(for: attribute.type)]
        }
        var request = FetchRequest<ManagedObject>(entityName: entity.name)
        request.predicate = try QueryPredicate(format: format.joined(separator: " AND "), argumentArray: arguments)
        request.fetchLimit = 1
        request.affectedStores = [mirror.store]   // (a shared store holds the same entities)
        return try context.fetch(request).first
    }

    /// Each property's latest stamp on one side: its ancestor's, or a later pending edit's.
    private func stamps(_ claim: KeyClaim) -> [String: HLCStamp] {
        var result = claim.pending
        for (property, role) in mirror.mirrored.roles[claim.object.entity.name] ?? [:] {
            guard case .attribute = role else { continue }
            let fields = [claim.ancestor?.fields[MirroredModel.fieldName(property)], claim.ancestor?.fields[MirroredModel.assetFieldName(property)]]
            for field in fields.compactMap({ $0 }) where result[property].map({ $0 < field.stamp }) ?? true {
                result[property] = field.stamp
            }
        }
        return result
    }

    /// Merges two local objects that hold one unique key: the survivor takes the other's
    /// later values, its to-one destinations where it has none, and its members; the other is
    /// deleted in the import context (its record's deletion goes out with the page).
    func mergeKeyTwins(_ a: KeyClaim, _ b: KeyClaim) throws -> KeyMerge {
        let key = RecordNames.uniqueName(entity: a.object.entity, values: uniqueValues(of: a.object))
        let aWins = Self.survivor(a.name, b.name, key: key) == a.name && (a.name != nil || b.name == nil)
        let (winner, loser) = aWins ? (a, b) : (b, a)
        let winnerStamps = stamps(winner), loserStamps = stamps(loser)
        let keyNames = Set(a.object.entity.rootEntity.uniquenessConstraints.first ?? [])
        var merge = KeyMerge(winner: winner.object.objectID, winnerFields: [:], memberFields: [], links: [], loser: loser.object.objectID)
        for (property, role) in mirror.mirrored.roles[winner.object.entity.name] ?? [:] {
            switch role {
            case .attribute:
                guard !keyNames.contains(property), let stamp = loserStamps[property],
                      winnerStamps[property].map({ $0 < stamp }) ?? true else { continue }
                winner.object.setValue(loser.object.primitiveValue(forKey: property) ?? .null, forKey: property)
                merge.winnerFields[property] = stamp
            case .toOne:
                guard winner.object.value(forKey: property) == nil,
                      let destination = loser.object.value(forKey: property) as? ManagedObject else { continue }
                loser.object.setValue(nil, forKey: property)
                winner.object.setValue(destination, forKey: property)
                merge.winnerFields[property] = .freshEdit
            case .carriedByInverse:
                guard let relationship = winner.object.entity.relationshipsByName[property], let inverse = relationship.inverseName else { continue }
                if relationship.isToMany {
                    let members = (loser.object.value(forKey: property) as? Set<ManagedObject>) ?? []
                    for member in members {
                        member.setValue(winner.object, forKey: inverse)
                        merge.memberFields.append((member.objectID, inverse))
                    }
                } else if winner.object.value(forKey: property) == nil, let member = loser.object.value(forKey: property) as? ManagedObject {
                    member.setValue(winner.object, forKey: inverse)
                    merge.memberFields.append((member.objectID, inverse))
                }
            case let .manyToMany(linkKey, isFirst):
                let members = Array((loser.object.value(forKey: property) as? Set<ManagedObject>) ?? [])
                guard !members.isEmpty else { continue }
                try loser.object.removeObjects(members, fromRelationship: property)
                try winner.object.addObjects(members, toRelationship: property)
                for member in members {
                    merge.links.append((linkKey, isFirst ? winner.object.objectID : member.objectID, isFirst ? member.objectID : winner.object.objectID))
                }
            }
        }
        context.delete(loser.object)
        return merge
    }
}
