import Foundation

extension ManagedObject {
    /// Sets a property's stored value without keeping inverse relationships consistent and
    /// without change notifications: for custom accessors, as Core Data's `setPrimitiveValue`.
    /// Attributes take Swift values of their type; to-one relationships a ``ManagedObject``
    /// or nil; to-many a set or array of them.
    ///
    /// ```swift
    /// willChangeValue(forKey: "title")
    /// try setPrimitiveValue(title.trimmingCharacters(in: .whitespaces), forKey: "title")
    /// didChangeValue(forKey: "title")
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty``,
    ///   ``NimbusError/Code-swift.struct/typeMismatch``.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) throws {
        checkQueue()
        let index = try propertyIndex(key)
        if values == nil { try fireFault() }
        switch entity.properties[index] {
        case let .attribute(attribute):
            setPrimitive(try PropertyValue(value, for: attribute.type, transformerName: attribute.valueTransformerName), at: index)
        case let .relationship(relationship) where relationship.isToMany:
            try loadToManyIfNeeded(index)
            let objects: [ManagedObject] = switch value {
            case nil: []
            case let set as Set<ManagedObject>: Array(set)
            case let array as [ManagedObject]: array
            default: throw NimbusError(.typeMismatch, "\(entity.name).\(key) is to-many; set a Set<ManagedObject> or [ManagedObject], not \(type(of: value!))")
            }
            setPrimitive(.objects(objects.map(\.objectID)), at: index)
        case .relationship:
            guard value == nil || value is ManagedObject else {
                throw NimbusError(.typeMismatch, "\(entity.name).\(key) is to-one; set a ManagedObject or nil, not \(type(of: value!))")
            }
            setPrimitive((value as? ManagedObject).map { .object($0.objectID) } ?? .null, at: index)
        }
    }

    /// The IDs of a relationship's destinations, without loading (or faulting in) the
    /// destination objects: for a to-many relationship read from the store once, for a
    /// to-one the single ID (or none).
    ///
    /// ```swift
    /// let tagIDs = try post.objectIDs(forRelationshipNamed: "tags")
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty`` when the name is not a
    ///   relationship; the errors of reading the store.
    public func objectIDs(forRelationshipNamed name: String) throws -> [ManagedObjectID] {
        checkQueue()
        let index = try propertyIndex(name)
        guard let relationship = entity.properties[index].relationship else {
            throw NimbusError(.unknownProperty, "\(entity.name).\(name) is an attribute, not a relationship")
        }
        if values == nil { try fireFault() }
        if relationship.isToMany {
            try loadToManyIfNeeded(index)
            if case let .objects(ids) = values![index] { return ids }
            return []
        }
        if case let .object(id) = values![index] { return [id] }
        return []
    }

    /// The properties changed in the current event (since the context last processed
    /// pending changes), with their new values, as ``changedValues()`` gives them.
    ///
    /// ```swift
    /// post.setValue("New", forKey: "title")
    /// post.changedValuesForCurrentEvent()   // ["title": "New"]
    /// ```
    public func changedValuesForCurrentEvent() -> [String: Any] {
        checkQueue()
        guard let context = managedObjectContext, let values else { return [:] }
        let before: [PropertyValue]?
        if let state = context.stateBeforeEvent(of: self) {
            before = state.values
        } else if flags.isInserted && insertionSequence > context.reference.eventInsertionMark {
            before = nil  // new in this event: every set property changed
        } else {
            return [:]
        }
        var result: [String: Any] = [:]
        for (index, property) in entity.properties.enumerated() {
            let old = before?[index] ?? (property.relationship?.isToMany == true ? .objects([]) : .null)
            guard values[index] != old else { continue }
            if property.relationship?.isToMany == true, case .null = values[index] { continue }
            result[property.name] = value(forKey: property.name) ?? NSNull()
        }
        return result
    }
}
