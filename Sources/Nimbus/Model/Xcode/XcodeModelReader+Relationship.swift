extension XcodeModelReader {
    /// Xcode's `deletionRule` names. An absent rule is Nullify, Xcode's default.
    static let deleteRules: [String: RelationshipDescription.DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    private static let relationshipKeys: Set<String> = [
        "name", "destinationEntity", "inverseName", "inverseEntity", "optional", "transient", "toMany", "ordered",
        "deletionRule", "minCount", "maxCount", "renamingIdentifier", "elementID", "versionHashModifier",
    ]
    private static let reportedRelationshipKeys: Set<String> = ["spotlightIndexingEnabled", "storedInTruthFile"]

    /// Reads `<relationship>`.
    ///
    /// Xcode writes `optional="YES"` for optional relationships and nothing for required
    /// ones, `toMany="YES"` for to-many ones and `maxCount="1"` for to-one ones.
    mutating func readRelationship(_ element: XcodeXMLElement, entity: String) throws -> RelationshipDescription {
        let name = try required("name", of: element, what: "a relationship of \(entity)")
        let owner = "\(entity).\(name)"
        checkKeys(of: element, owner: owner, understood: Self.relationshipKeys,
                  ignored: Self.reportedRelationshipKeys.union(["syncable"]))
        let destination = try required("destinationEntity", of: element, what: "relationship \(owner)")
        let ruleName = element["deletionRule"] ?? "Nullify"
        guard let deleteRule = Self.deleteRules[ruleName] else {
            throw invalid("relationship \(owner) has delete rule \"\(ruleName)\"; expected Nullify, Cascade, Deny or No Action",
                          at: element)
        }
        if let inverseEntity = element["inverseEntity"], element["inverseName"] == nil {
            note("\(owner): inverse entity \(inverseEntity) is given without an inverse name; the relationship has no inverse")
        }
        var relationship = RelationshipDescription(
            name, to: destination, inverse: element["inverseName"],
            toMany: try flag("toMany", of: element, owner: owner) ?? false,
            ordered: try flag("ordered", of: element, owner: owner) ?? false,
            deleteRule: deleteRule,
            isOptional: try flag("optional", of: element, owner: owner) ?? false,
            isTransient: try flag("transient", of: element, owner: owner) ?? false,
            minCount: try integer("minCount", of: element, owner: owner) ?? 0,
            maxCount: try integer("maxCount", of: element, owner: owner) ?? 0,
            renamingIdentifier: renamingIdentifier(of: element),
            versionHashModifier: element["versionHashModifier"])
        for child in element.children {
            guard child.name == "userInfo" else {
                noteUnknownChild(child, owner: owner)
                continue
            }
            relationship.userInfo = try readUserInfo(child, owner: owner)
        }
        if try flag("spotlightIndexingEnabled", of: element, owner: owner) == true {
            note("\(owner): Spotlight indexing is not supported; it was ignored")
        }
        if try flag("storedInTruthFile", of: element, owner: owner) == true {
            note("\(owner): storing in an external record file is not supported; the value is stored in the store")
        }
        return relationship
    }
}
