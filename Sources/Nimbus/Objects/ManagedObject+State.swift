import Foundation

extension ManagedObject {
    /// Whether the object's values are not loaded yet.
    public var isFault: Bool { checkQueue(); return values == nil }
    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { checkQueue(); return flags.isInserted && !flags.isDeleted }
    /// Whether the object was deleted and not yet saved (or its row is gone).
    public var isDeleted: Bool { checkQueue(); return flags.isDeleted }
    /// Whether a saved object has changed properties since it was last saved.
    public var isUpdated: Bool { checkQueue(); return !flags.isInserted && !flags.isDeleted && hasPersistentChangedValues }

    /// Whether the object has unsaved changes of any kind.
    public var hasChanges: Bool {
        checkQueue()
        return flags.isInserted || flags.isDeleted || hasPersistentChangedValues || (flags.isDeletedInStore && flags.isChanged)
    }

    /// Whether any stored property differs from the last saved value.
    public var hasPersistentChangedValues: Bool {
        checkQueue()
        guard let values else { return false }
        guard let committed else { return flags.isInserted }
        for index in entity.attributeIndexes where values[index] != committed.values[index] { return true }
        for index in entity.toOneIndexes where values[index] != committed.values[index] { return true }
        for index in entity.toManyIndexes where loadedToMany.contains(index) {
            if case let .objects(ids) = values[index], let old = committedToMany[index], !sameMembers(ids, old, ordered: isOrdered(index)) {
                return true
            }
        }
        return false
    }

    /// The properties changed since the last save, with their new values.
    /// Relationships give `ManagedObject`s, sets of them or arrays (ordered).
    public func changedValues() -> [String: Any] {
        checkQueue()
        var result: [String: Any] = [:]
        for index in changedPropertyIndexes() {
            let name = entity.properties[index].name
            result[name] = value(forKey: name) ?? NSNull()
        }
        return result
    }

    /// The last saved values of some properties (all stored ones when keys is nil).
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        checkQueue()
        fireFaultIfNeeded()
        var result: [String: Any] = [:]
        let names = keys ?? entity.properties.filter { !$0.isTransient }.map(\.name)
        for name in names {
            guard let index = entity.propertyIndexes[name] else { continue }
            switch entity.properties[index] {
            case let .attribute(attribute):
                let value = committed?.values[index] ?? .null
                result[name] = value.anyValue(for: attribute.type, transformerName: attribute.valueTransformerName) ?? NSNull()
            case let .relationship(relationship):
                if relationship.isToMany {
                    var ids = committedToMany[index] ?? []
                    if committed != nil && committedToMany[index] == nil {
                        do { ids = try loadToMany(index) } catch { managedObjectContext?.recordFaultFailure(error, for: objectID) }
                    }
                    let objects = ids.compactMap { managedObjectContext?.object(with: $0) }
                    result[name] = relationship.isOrdered ? objects as Any : Set(objects) as Any
                } else if case let .object(id) = committed?.values[index] ?? .null {
                    result[name] = managedObjectContext?.object(with: id) ?? NSNull()
                } else {
                    result[name] = NSNull()
                }
            }
        }
        return result
    }

    /// Indexes of stored properties whose values differ from the committed ones.
    func changedPropertyIndexes() -> [Int] {
        guard let values else { return [] }
        var changed: [Int] = []
        for index in entity.attributeIndexes + entity.toOneIndexes {
            if committed == nil ? !values[index].isNull : values[index] != committed!.values[index] { changed.append(index) }
        }
        for index in entity.toManyIndexes where loadedToMany.contains(index) {
            guard case let .objects(ids) = values[index] else { continue }
            let old = committedToMany[index] ?? []
            if !sameMembers(ids, old, ordered: isOrdered(index)) { changed.append(index) }
        }
        return changed.sorted()
    }

    func isOrdered(_ index: Int) -> Bool { entity.properties[index].relationship?.isOrdered ?? false }

    func sameMembers(_ a: [ManagedObjectID], _ b: [ManagedObjectID], ordered: Bool) -> Bool {
        ordered ? a == b : (a.count == b.count && Set(a) == Set(b))
    }
}

extension ManagedObject {
    /// The saved values of attributes marked "preserve after deletion", for history.
    func tombstone() -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        for (index, property) in entity.properties.enumerated() {
            guard let attribute = property.attribute, attribute.preservesValueInHistoryOnDeletion else { continue }
            result[attribute.name] = committed?.values[index] ?? values?[index] ?? .null
        }
        return result
    }
}
