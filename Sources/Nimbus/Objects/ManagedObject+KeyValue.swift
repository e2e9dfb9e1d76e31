import Foundation

extension ManagedObject {
    /// The value of a property: attributes as Swift values, to-one relationships as a
    /// `ManagedObject`, to-many as `Set<ManagedObject>` (`[ManagedObject]` when ordered).
    /// Unknown keys give nil; use ``validatedValue(forKey:)`` for an error instead.
    ///
    /// When the object's row (or a to-many relationship) cannot be read, for example because
    /// another connection holds a lock too long, this gives nil, the object stays a live
    /// fault, and the context's next save throws the read's error;
    /// ``validatedValue(forKey:)`` throws it at once.
    public func value(forKey key: String) -> Any? {
        checkQueue()
        guard let index = entity.index(ofProperty: key) else {
            if let fetched = entity.fetchedProperties.first(where: { $0.name == key }) {
                do { return try fetchedPropertyValue(fetched) } catch {
                    managedObjectContext?.recordFaultFailure(error, for: objectID)
                    return nil
                }
            }
            #if DEBUG
            // Core Data raises on an unknown key: a typo must not pass for a nil value.
            preconditionFailure("value(forKey:): \(entity.name) has no property \"\(key)\" (properties: \(entity.properties.map(\.name).joined(separator: ", ")))")
            #else
            return nil
            #endif
        }
        do {
            return try value(at: index)
        } catch {
            managedObjectContext?.recordFaultFailure(error, for: objectID)
            return nil
        }
    }

    /// The value of a property, or an error for an unknown key or a failed read.
    ///
    /// For example:
    ///
    /// ```swift
    /// let title = try post.validatedValue(forKey: "title") as? String
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty``; the errors of
    ///   ``fireFault()`` when the object is a fault whose row cannot be read.
    public func validatedValue(forKey key: String) throws -> Any? {
        checkQueue()
        if entity.index(ofProperty: key) == nil, let fetched = entity.fetchedProperties.first(where: { $0.name == key }) {
            return try fetchedPropertyValue(fetched)
        }
        let index = try propertyIndex(key)
        return try value(at: index)
    }

    func value(at index: Int) throws -> Any? {
        switch entity.propertyKinds[index] {
        case let .attribute(type):
            if values == nil { try fireFault() }
            return values![index].anyValue(for: type)
        case .transformable:
            if values == nil { try fireFault() }
            return values![index].anyValue(for: .transformable, transformerName: entity.properties[index].attribute?.valueTransformerName)
        case let .toMany(isOrdered):
            guard let context = managedObjectContext else { return nil }
            try loadToManyIfNeeded(index)
            guard case let .objects(ids) = values![index] else { return nil }
            return toManyValue(ids, at: index, ordered: isOrdered, context: context)
        case .toOne:
            guard let context = managedObjectContext else { return nil }
            if values == nil { try fireFault() }
            guard case let .object(id) = values![index] else { return nil }
            return context.object(with: id)
        }
    }

    /// Sets a property. Attributes take Swift values of their type; to-one relationships a
    /// `ManagedObject` or nil; to-many a `Set<ManagedObject>` or `[ManagedObject]`.
    /// Inverse relationships are kept consistent.
    ///
    /// Invalid keys or values are ignored here (accessors cannot throw); use
    /// ``setValidatedValue(_:forKey:)`` to get the error. When the object (or a related
    /// one) cannot be read, nothing is set and the context's next save throws the read's
    /// error, so the lost edit is not silent.
    public func setValue(_ value: Any?, forKey key: String) {
        checkQueue()
        // The object's own read first, so a stored value it cannot hold (a typeMismatch of
        // the read) is recorded rather than taken for a wrong value given here.
        guard fireFaultIfNeeded() else { return }
        do {
            try setValidatedValue(value, forKey: key)
        } catch let error as NimbusError where error.code == .unknownProperty || error.code == .typeMismatch || error.code == .wrongContext {
            #if DEBUG
            // Core Data raises on an unknown key or a value of the wrong type.
            preconditionFailure("setValue(_:forKey: \"\(key)\") on \(objectID): \(error.message)")
            #else
            return
            #endif
        } catch {
            managedObjectContext?.recordFaultFailure(error, for: objectID)
        }
    }

    /// Sets a property, throwing on an unknown key or a value of the wrong type.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty``,
    ///   ``NimbusError/Code-swift.struct/typeMismatch``,
    ///   ``NimbusError/Code-swift.struct/wrongContext``; the errors of ``fireFault()`` when
    ///   the object is a fault whose row cannot be read (nothing is changed then).
    public func setValidatedValue(_ value: Any?, forKey key: String) throws {
        checkQueue()
        let index = try propertyIndex(key)
        if values == nil { try fireFault() }
        willChangeValue(forKey: key)
        defer { didChangeValue(forKey: key) }
        if case let .attribute(type) = entity.propertyKinds[index] {
            setPrimitive(try PropertyValue(value, for: type), at: index)
            return
        }
        switch entity.properties[index] {
        case let .attribute(attribute):
            let newValue = try PropertyValue(value, for: attribute.type, transformerName: attribute.valueTransformerName)
            setPrimitive(newValue, at: index)
        case let .relationship(relationship):
            if relationship.isToMany {
                let objects: [ManagedObject]
                switch value {
                case nil: objects = []
                case let set as Set<ManagedObject>: objects = Array(set)
                case let array as [ManagedObject]: objects = array
                default:
                    throw NimbusError(.typeMismatch, "\(entity.name).\(key) is to-many; set a Set<ManagedObject> or [ManagedObject], not \(type(of: value!))")
                }
                try setToMany(objects, at: index)
            } else {
                guard value == nil || value is ManagedObject else {
                    throw NimbusError(.typeMismatch, "\(entity.name).\(key) is to-one; set a ManagedObject or nil, not \(type(of: value!))")
                }
                try setToOne(value as? ManagedObject, at: index)
            }
        }
    }

    /// Adds objects to a to-many relationship, keeping inverses consistent.
    public func addObjects(_ objects: [ManagedObject], toRelationship key: String) throws {
        checkQueue()
        let index = try toManyIndex(key)
        try loadToManyIfNeeded(index)
        guard case let .objects(current) = values![index] else { return }
        let existing = Set(current)
        try setToMany(current.compactMap { managedObjectContext?.object(with: $0) } + objects.filter { !existing.contains($0.objectID) }, at: index)
    }

    /// Removes objects from a to-many relationship, keeping inverses consistent.
    public func removeObjects(_ objects: [ManagedObject], fromRelationship key: String) throws {
        checkQueue()
        let index = try toManyIndex(key)
        try loadToManyIfNeeded(index)
        guard case let .objects(current) = values![index] else { return }
        let removed = Set(objects.map(\.objectID))
        try setToMany(current.filter { !removed.contains($0) }.compactMap { managedObjectContext?.object(with: $0) }, at: index)
    }

    private func toManyIndex(_ key: String) throws -> Int {
        let index = try propertyIndex(key)
        guard entity.properties[index].relationship?.isToMany == true else {
            throw NimbusError(.typeMismatch, "\(entity.name).\(key) is not a to-many relationship")
        }
        return index
    }

    @inline(__always)
    func propertyIndex(_ key: String) throws -> Int {
        guard let index = entity.index(ofProperty: key) else {
            let known = entity.properties.map(\.name).joined(separator: ", ")
            throw NimbusError(.unknownProperty, "\(entity.name) has no property \(key) (properties: \(known))")
        }
        return index
    }

    /// Sets a stored value without inverse maintenance, and records the change. When the
    /// object is a fault that cannot be read, nothing is set (the context keeps the error
    /// and its next save throws it).
    func setPrimitive(_ value: PropertyValue, at index: Int) {
        guard fireFaultIfNeeded(), values![index] != value else { return }
        if !flags.isTouchedInEvent, let reference = contextReference, !(flags.isInserted && insertionSequence > reference.eventInsertionMark) {
            reference.context?.recordTouch(self)
        }
        values![index] = value
        // New objects count as inserted, and changed ones are marked once.
        if !flags.isInserted && !flags.isChanged { managedObjectContext?.markChanged(self) }
    }

    private func checkSameContext(_ other: ManagedObject) throws {
        guard other.managedObjectContext === managedObjectContext else {
            throw NimbusError(.wrongContext, "\(other.objectID) belongs to another context; relate objects of one context only")
        }
    }

    func setToOne(_ destination: ManagedObject?, at index: Int) throws {
        let relationship = entity.properties[index].relationship!
        if let destination {
            try checkSameContext(destination)
            try checkDestination(destination, relationship)
        }
        try fireFault()
        let old: ManagedObjectID? = if case let .object(id) = values![index] { id } else { nil }
        if old == destination?.objectID { return }
        setPrimitive(destination.map { .object($0.objectID) } ?? .null, at: index)
        guard let inverse = entity.inverse(of: relationship), let context = managedObjectContext else { return }
        if let old { context.object(with: old).inverseRemove(objectID, relationship: inverse) }
        destination?.inverseAdd(self, relationship: inverse)
    }

    func setToMany(_ objects: [ManagedObject], at index: Int) throws {
        let relationship = entity.properties[index].relationship!
        for object in objects {
            try checkSameContext(object)
            try checkDestination(object, relationship)
        }
        try loadToManyIfNeeded(index)
        guard case let .objects(oldIDs) = values![index] else { return }
        var seen: Set<ManagedObjectID> = []
        let newIDs = objects.map(\.objectID).filter { seen.insert($0).inserted }
        setPrimitive(.objects(newIDs), at: index)
        guard let inverse = entity.inverse(of: relationship), let context = managedObjectContext else { return }
        let oldSet = Set(oldIDs)
        for removed in oldIDs where !seen.contains(removed) {
            context.object(with: removed).inverseRemove(objectID, relationship: inverse)
        }
        for object in objects where !oldSet.contains(object.objectID) {
            object.inverseAdd(self, relationship: inverse)
        }
    }

    private func checkDestination(_ object: ManagedObject, _ relationship: RelationshipDescription) throws {
        guard let destination = entity.destination(of: relationship), object.entity.isKind(of: destination) else {
            throw NimbusError(.typeMismatch, "\(entity.name).\(relationship.name) holds \(relationship.destinationEntityName) objects, not \(object.entity.name)")
        }
    }

    /// The inverse side of a change: `source` now points at this object.
    func inverseAdd(_ source: ManagedObject, relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        defer { if hasValueObservers { notifyValueObservers(forKey: relationship.name) } }
        if relationship.isToMany {
            guard ensureToManyLoaded(index), case var .objects(ids) = values![index], !ids.contains(source.objectID) else { return }
            ids.append(source.objectID)
            setPrimitive(.objects(ids), at: index)
        } else {
            guard fireFaultIfNeeded() else { return }
            if case let .object(previous) = values![index], previous != source.objectID,
               let inverseOfInverse = entity.inverse(of: relationship), let context = managedObjectContext {
                // A one-to-one: the previous partner loses its pointer to this object.
                context.object(with: previous).inverseRemove(objectID, relationship: inverseOfInverse)
            }
            setPrimitive(.object(source.objectID), at: index)
        }
    }

    /// The inverse side of a change: `sourceID` no longer points at this object.
    func inverseRemove(_ sourceID: ManagedObjectID, relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        defer { if hasValueObservers { notifyValueObservers(forKey: relationship.name) } }
        if relationship.isToMany {
            guard ensureToManyLoaded(index), case var .objects(ids) = values![index], let position = ids.firstIndex(of: sourceID) else { return }
            ids.remove(at: position)
            setPrimitive(.objects(ids), at: index)
        } else {
            guard fireFaultIfNeeded() else { return }
            if values![index] == .object(sourceID) { setPrimitive(.null, at: index) }
        }
    }

    /// The primitive stored value of a property, without conversion (for typed accessors).
    public func primitiveValue(forKey key: String) -> PropertyValue? {
        checkQueue()
        guard let index = entity.propertyIndexes[key] else { return nil }
        if entity.properties[index].relationship?.isToMany == true { ensureToManyLoaded(index) } else { fireFaultIfNeeded() }
        return values?[index]
    }
}
