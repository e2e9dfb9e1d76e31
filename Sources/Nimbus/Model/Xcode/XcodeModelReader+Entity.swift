import Foundation

extension XcodeModelReader {
    private static let entityKeys: Set<String> = [
        "name", "representedClassName", "parentEntity", "isAbstract", "renamingIdentifier", "elementID",
        "versionHashModifier", "spotlightDisplayNameProperty",
    ]
    /// `syncable` is a leftover of iSync; `codeGenerationType` tells Xcode which Swift files to write.
    private static let ignoredEntityKeys: Set<String> = ["syncable", "codeGenerationType"]

    /// Reads `<entity>` with its properties, indexes, constraints and user info.
    mutating func readEntity(_ element: XcodeXMLElement) throws -> EntityDescription {
        let name = try required("name", of: element, what: "an entity")
        checkKeys(of: element, owner: name, understood: Self.entityKeys, ignored: Self.ignoredEntityKeys)
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var fetchIndexes: [FetchIndexDescription] = []
        var uniquenessConstraints: [[String]] = []
        var userInfo: [String: String] = [:]
        var fetchedProperties: [FetchedPropertyDescription] = []
        for child in element.children {
            switch child.name {
            case "attribute":
                guard let attribute = try readAttribute(child, entity: name) else { continue }
                attributes.append(attribute)
                if try flag("indexed", of: child, owner: "\(name).\(attribute.name)") == true {
                    // Xcode's own upgrade of the old "Indexed" checkbox makes this fetch index.
                    let indexName = "by" + attribute.name.prefix(1).uppercased() + attribute.name.dropFirst() + "Index"
                    fetchIndexes.append(FetchIndexDescription(name: indexName, elements: [.init(attribute.name)]))
                }
            case "relationship":
                relationships.append(try readRelationship(child, entity: name))
            case "fetchedProperty":
                let property = child["name"] ?? "(unnamed)"
                if let request = child.children(named: "fetchRequest").first, let entity = request["entity"] {
                    fetchedProperties.append(FetchedPropertyDescription(name: property, entityName: entity, predicateFormat: request["predicateString"]))
                } else {
                    note("\(name).\(property): fetched property without an entity to fetch; it was left out")
                }
            case "fetchIndex":
                if let index = try readFetchIndex(child, entity: name) { fetchIndexes.append(index) }
            case "compoundIndexes":
                fetchIndexes += try readCompoundIndexes(child, entity: name)
            case "uniquenessConstraints":
                uniquenessConstraints += try readUniquenessConstraints(child, entity: name)
            case "userInfo":
                userInfo = try readUserInfo(child, owner: name)
            default:
                noteUnknownChild(child, owner: name)
            }
        }
        fetchIndexes = withoutToManyElements(fetchIndexes, entity: name, toMany: Set(relationships.filter(\.isToMany).map(\.name)))
        return EntityDescription(
            name, parent: element["parentEntity"],
            isAbstract: try flag("isAbstract", of: element, owner: name) ?? false,
            className: element["representedClassName"],
            attributes: attributes, relationships: relationships, fetchIndexes: fetchIndexes,
            uniquenessConstraints: uniquenessConstraints,
            renamingIdentifier: renamingIdentifier(of: element),
            versionHashModifier: element["versionHashModifier"], userInfo: userInfo,
            spotlightDisplayNameProperty: element["spotlightDisplayNameProperty"], fetchedProperties: fetchedProperties)
    }

    /// Xcode writes the inspector's "Renaming ID" as `elementID`; `renamingIdentifier` is
    /// accepted too.
    func renamingIdentifier(of element: XcodeXMLElement) -> String? {
        (element["renamingIdentifier"] ?? element["elementID"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Reads `<fetchIndex name=><fetchIndexElement property= type= order=/></fetchIndex>`;
    /// nil (with a note) for elements on expressions, which Nimbus cannot build yet.
    /// `type` is `Binary` or `RTree`; the model checks what each may index.
    private mutating func readFetchIndex(_ element: XcodeXMLElement, entity: String) throws -> FetchIndexDescription? {
        let name = try required("name", of: element, what: "a fetch index of \(entity)")
        let owner = "\(entity).\(name)"
        checkKeys(of: element, owner: owner, understood: ["name"], ignored: [])
        var elements: [FetchIndexDescription.Element] = []
        var unsupported: [String] = []
        for child in element.children {
            guard child.name == "fetchIndexElement" else {
                noteUnknownChild(child, owner: owner)
                continue
            }
            checkKeys(of: child, owner: owner, understood: ["property", "type", "order", "expression", "expressionType"], ignored: [])
            let collationType: FetchIndexDescription.CollationType
            switch child["type"] ?? "Binary" {
            case "Binary": collationType = .binary
            case "RTree": collationType = .rTree
            case let other: throw invalid("fetch index \(owner) has type \"\(other)\"; expected Binary or RTree", at: child)
            }
            let ascending: Bool
            switch child["order"] ?? "ascending" {
            case "ascending": ascending = true
            case "descending": ascending = false
            case let other: throw invalid("fetch index \(owner) has order \"\(other)\"; expected ascending or descending", at: child)
            }
            if let property = child["property"] {
                elements.append(.init(property, ascending: ascending, collationType: collationType))
            } else if let expression = child["expression"] {
                unsupported.append("an element on the expression `\(expression)`")
            } else {
                throw invalid("fetch index \(owner) has an element with neither property nor expression", at: child)
            }
        }
        if !unsupported.isEmpty {
            note("\(owner): fetch index with \(unsupported.joined(separator: " and ")) is not supported yet; the index was left out")
            return nil
        }
        if elements.isEmpty {
            note("\(owner): fetch index has no elements; it was left out")
            return nil
        }
        return FetchIndexDescription(name: name, elements: elements)
    }

    /// Xcode accepts a fetch index element on a to-many relationship, which no column holds:
    /// the element is left out with a note, and an index left without elements is dropped.
    private mutating func withoutToManyElements(_ indexes: [FetchIndexDescription], entity: String,
                                                toMany: Set<String>) -> [FetchIndexDescription] {
        indexes.compactMap { index in
            let dropped = index.elements.filter { toMany.contains($0.property) }
            guard !dropped.isEmpty else { return index }
            var kept = index
            kept.elements.removeAll { toMany.contains($0.property) }
            let names = dropped.map(\.property).joined(separator: ", ")
            if kept.elements.isEmpty {
                note("\(entity).\(index.name): fetch index element on to-many relationship \(names) cannot be indexed (no column holds it); the index was left out")
                return nil
            }
            note("\(entity).\(index.name): fetch index element on to-many relationship \(names) cannot be indexed (no column holds it); the index was built on \(kept.elements.map(\.property).joined(separator: ", ")) only")
            return kept
        }
    }

    /// Reads the compound indexes of models saved before Xcode 9 as fetch indexes.
    private mutating func readCompoundIndexes(_ element: XcodeXMLElement, entity: String) throws -> [FetchIndexDescription] {
        var indexes: [FetchIndexDescription] = []
        for compound in element.children {
            guard compound.name == "compoundIndex" else {
                noteUnknownChild(compound, owner: entity)
                continue
            }
            let properties = try compound.children(named: "index").map {
                try required("value", of: $0, what: "a compound index element of \(entity)")
            }
            guard !properties.isEmpty else { continue }
            indexes.append(FetchIndexDescription(name: "compoundIndex\(indexes.count + 1)",
                                                 elements: properties.map { .init($0) }))
        }
        return indexes
    }

    /// Reads `<uniquenessConstraints><uniquenessConstraint><constraint value=/>…`.
    private mutating func readUniquenessConstraints(_ element: XcodeXMLElement, entity: String) throws -> [[String]] {
        var constraints: [[String]] = []
        for constraint in element.children {
            guard constraint.name == "uniquenessConstraint" else {
                noteUnknownChild(constraint, owner: entity)
                continue
            }
            var properties: [String] = []
            for child in constraint.children {
                guard child.name == "constraint" else {
                    noteUnknownChild(child, owner: entity)
                    continue
                }
                properties.append(try required("value", of: child, what: "a uniqueness constraint of \(entity)"))
            }
            if !properties.isEmpty { constraints.append(properties) }
        }
        return constraints
    }
}
