import Foundation
import Nimbus

extension StoreCommand.Inspect {
    /// One entity as `inspect` shows it: row counts (with sub-entities, and its own), its
    /// declared attributes and relationships, fetch indexes and uniqueness constraints.
    static func describe(_ entity: EntityDescription, own: Int, total: Int) -> [String: Any] {
        [
            // `count` as Core Data counts a fetch of the entity: its sub-entities' rows included.
            "name": entity.name, "count": total, "ownCount": own,
            "parent": entity.superentityName as Any? ?? NSNull(), "abstract": entity.isAbstract,
            "attributes": entity.declaredAttributes.map { attribute -> [String: Any] in
                var entry: [String: Any] = ["name": attribute.name, "type": attribute.type.rawValue, "optional": attribute.isOptional]
                if attribute.isTransient { entry["transient"] = true }
                if let value = attribute.defaultValue { entry["default"] = ObjectJSON.json(value.anyValue, type: nil) }
                if let name = attribute.valueTransformerName { entry["valueTransformer"] = name }
                if attribute.allowsExternalBinaryDataStorage { entry["externalStorage"] = true }
                return entry
            },
            "relationships": entity.declaredRelationships.map { relationship -> [String: Any] in
                var entry: [String: Any] = ["name": relationship.name, "destination": relationship.destinationEntityName,
                                            "toMany": relationship.isToMany, "optional": relationship.isOptional,
                                            "deleteRule": relationship.deleteRule.rawValue]
                if let inverse = relationship.inverseName { entry["inverse"] = inverse }
                if relationship.isOrdered { entry["ordered"] = true }
                return entry
            },
            "indexes": entity.fetchIndexes.map { index -> [String: Any] in
                ["name": index.name, "elements": index.elements.map { ($0.ascending ? "" : "-") + $0.property },
                 "type": index.isRTree ? "rtree" : "binary"]
            },
            "uniquenessConstraints": entity.uniquenessConstraints,
        ]
    }

    /// The text form of ``describe(_:own:total:)``.
    static func text(_ entry: [String: Any]) -> [String] {
        let name = entry["name"] as! String
        let parent = (entry["parent"] as? String).map { " : \($0)" } ?? ""
        let own = entry["ownCount"] as! Int, total = entry["count"] as! Int
        let abstract = entry["abstract"] as? Bool == true ? " (abstract)" : ""
        func rows(_ n: Int) -> String { n == 1 ? "1 row" : "\(n) rows" }
        var lines = ["  \(name)\(parent)\(abstract)  \(total == own ? rows(own) : "\(rows(total)) (\(own) of its own)")"]
        for attribute in entry["attributes"] as! [[String: Any]] {
            var line = "    \(attribute["name"]!): \(attribute["type"]!)\(attribute["optional"] as? Bool == true ? "?" : "")"
            if let value = attribute["default"] { line += " = " + ((value as? String).map { "\"\($0)\"" } ?? "\(value)") }
            if attribute["transient"] != nil { line += " transient" }
            if let transformer = attribute["valueTransformer"] { line += " transformer \(transformer)" }
            if attribute["externalStorage"] != nil { line += " external storage" }
            lines.append(line)
        }
        for relationship in entry["relationships"] as! [[String: Any]] {
            let toMany = relationship["toMany"] as? Bool == true
            var line = "    \(relationship["name"]!) -> \(toMany ? "[\(relationship["destination"]!)]" : "\(relationship["destination"]!)")"
                + (relationship["optional"] as? Bool == true ? "?" : "")
            if let inverse = relationship["inverse"] { line += " inverse \(inverse)" }
            line += " delete \(relationship["deleteRule"]!)"
            lines.append(line)
        }
        for index in entry["indexes"] as! [[String: Any]] {
            lines.append("    index \(index["name"]!) (\((index["elements"] as! [String]).joined(separator: ", ")))\(index["type"] as? String == "rtree" ? " rtree" : "")")
        }
        for constraint in entry["uniquenessConstraints"] as! [[String]] {
            lines.append("    unique (\(constraint.joined(separator: ", ")))")
        }
        return lines
    }
}
