/// Typed access to an object's storage by slot: what the accessors of a `@Managed` class
/// call. A slot is a property's position in its class's ``ManagedEntityClass/managedSlotNames``;
/// the entity maps it to the property's index once, when the model is built, so a read is
/// an array access and a switch on the stored value: no name lookup, no `Any`.
///
/// ```swift
/// var title: String? {
///     get { managedValue(slot: 0) }
///     set { setManagedValue(newValue, slot: 0) }
/// }
/// ```
extension ManagedObject {
    /// The stored value in a slot (firing the fault first); ``PropertyValue/null`` when the
    /// object cannot be read (the context's next save throws the read's error).
    public func managedPrimitiveValue(slot: Int) -> PropertyValue {
        checkQueue()
        guard fireFaultIfNeeded() else { return .null }
        return values.unsafelyUnwrapped[objectID.entity.typedSlots[slot]]
    }

    /// Sets the stored value in a slot, recording the change as `setValue(_:forKey:)` does.
    public func setManagedPrimitiveValue(_ value: PropertyValue, slot: Int) {
        checkQueue()
        guard fireFaultIfNeeded() else { return }
        setPrimitive(value, at: objectID.entity.typedSlots[slot])
    }

    /// An optional attribute's value.
    @inlinable
    public func managedValue<Value: ManagedAttributeValue>(slot: Int) -> Value? {
        Value(managedValue: managedPrimitiveValue(slot: slot))
    }

    /// A required attribute's value; while it is nil, the type's ``ManagedAttributeValue/managedNilValue``,
    /// and while it is a value the type cannot read (an enum case this version of the app
    /// does not know), the declared default value.
    @inlinable
    public func managedValue<Value: ManagedAttributeValue>(slot: Int) -> Value {
        let stored = managedPrimitiveValue(slot: slot)
        return Value(managedValue: stored) ?? unreadableValue(stored, index: objectID.entity.typedSlots[slot])
    }

    /// Sets an attribute.
    @inlinable
    public func setManagedValue<Value: ManagedAttributeValue>(_ value: Value?, slot: Int) {
        setManagedPrimitiveValue(value?.managedValue ?? .null, slot: slot)
    }

    /// A to-one relationship's destination.
    public func managedValue<Destination: ManagedObject>(slot: Int) -> Destination? {
        checkQueue()
        guard fireFaultIfNeeded(), let context = managedObjectContext,
              case let .object(id) = values.unsafelyUnwrapped[objectID.entity.typedSlots[slot]] else { return nil }
        return (context.object(with: id) as! Destination)
    }

    /// A to-one relationship is declared optional (it is nil until set); this overload only
    /// turns a non-optional declaration into a compile-time error.
    @available(*, unavailable, message: "a to-one relationship is nil until it is set: declare it optional (Destination?)")
    public func managedValue<Destination: ManagedObject>(slot: Int) -> Destination { fatalError() }

    /// A to-many relationship's destinations.
    public func managedValue<Destination: ManagedObject>(slot: Int) -> Set<Destination> {
        Set(managedDestinations(slot: slot).map { $0 as! Destination })
    }

    /// An ordered to-many relationship's destinations, in order.
    public func managedValue<Destination: ManagedObject>(slot: Int) -> [Destination] {
        managedDestinations(slot: slot).map { $0 as! Destination }
    }

    private func managedDestinations(slot: Int) -> [ManagedObject] {
        checkQueue()
        let index = objectID.entity.typedSlots[slot]
        guard let context = managedObjectContext, ensureToManyLoaded(index),
              case let .objects(ids) = values.unsafelyUnwrapped[index] else { return [] }
        return ids.map { context.object(with: $0) }
    }

    /// Sets a to-one relationship, keeping its inverse consistent.
    ///
    /// An object of another context stops the process, as Core Data raises: relate objects
    /// of one context only.
    public func setManagedValue<Destination: ManagedObject>(_ destination: Destination?, slot: Int) {
        checkQueue()
        guard fireFaultIfNeeded() else { return }
        settingRelationship { try setToOne(destination, at: objectID.entity.typedSlots[slot]) }
    }

    /// Sets a to-many relationship, keeping inverses consistent.
    public func setManagedValue<Destination: ManagedObject>(_ destinations: Set<Destination>, slot: Int) {
        checkQueue()
        guard fireFaultIfNeeded() else { return }
        settingRelationship { try setToMany(Array(destinations), at: objectID.entity.typedSlots[slot]) }
    }

    /// Sets an ordered to-many relationship, keeping inverses consistent.
    public func setManagedValue<Destination: ManagedObject>(_ destinations: [Destination], slot: Int) {
        checkQueue()
        guard fireFaultIfNeeded() else { return }
        settingRelationship { try setToMany(destinations, at: objectID.entity.typedSlots[slot]) }
    }

    func settingRelationship(_ body: () throws -> Void) {
        do {
            try body()
        } catch let error as NimbusError where error.code == .wrongContext || error.code == .typeMismatch {
            preconditionFailure(error.message)
        } catch {
            managedObjectContext?.recordFaultFailure(error, for: objectID)
        }
    }
}

/// Typed access by property name: what the accessors `nimbus codegen --style extension`
/// writes call (an extension cannot hold the slots of `@Managed`). No `Any` is involved;
/// the name is found by the entity's short scan. An unknown name stops the process, as
/// Core Data raises.
extension ManagedObject {
    @usableFromInline func typedIndex(_ key: String) -> Int {
        guard let index = entity.index(ofProperty: key) else {
            preconditionFailure("\(entity.name) has no property \(key) (properties: \(entity.properties.map(\.name).joined(separator: ", ")))")
        }
        return index
    }

    /// The stored value of a property by name.
    public func managedPrimitiveValue(forKey key: String) -> PropertyValue {
        checkQueue()
        let index = typedIndex(key)
        guard fireFaultIfNeeded() else { return .null }
        return values.unsafelyUnwrapped[index]
    }

    /// An optional attribute's value.
    @inlinable
    public func managedValue<Value: ManagedAttributeValue>(forKey key: String) -> Value? {
        Value(managedValue: managedPrimitiveValue(forKey: key))
    }

    /// A required attribute's value; while it is nil, the type's ``ManagedAttributeValue/managedNilValue``,
    /// and while it is a value the type cannot read, the declared default value.
    @inlinable
    public func managedValue<Value: ManagedAttributeValue>(forKey key: String) -> Value {
        let stored = managedPrimitiveValue(forKey: key)
        return Value(managedValue: stored) ?? unreadableValue(stored, index: typedIndex(key))
    }

    /// What a required attribute reads when its type cannot read the stored value: the
    /// type's nil value for nil; for a value written by another version of the app (an enum
    /// case this one does not know, JSON that no longer decodes), the attribute's declared
    /// default value, so a newer device's edit neither stops this one nor is overwritten.
    @usableFromInline
    func unreadableValue<Value: ManagedAttributeValue>(_ stored: PropertyValue, index: Int) -> Value {
        if case .null = stored { return Value.managedNilValue }
        guard case let .attribute(attribute) = entity.properties[index], let declared = attribute.defaultValue,
              let value = Value(managedValue: declared) else { return Value.managedNilValue }
        return value
    }

    /// Sets an attribute by name.
    public func setManagedValue<Value: ManagedAttributeValue>(_ value: Value?, forKey key: String) {
        checkQueue()
        let index = typedIndex(key)
        guard fireFaultIfNeeded() else { return }
        setPrimitive(value?.managedValue ?? .null, at: index)
    }

    /// A to-one relationship's destination, by name.
    public func managedValue<Destination: ManagedObject>(forKey key: String) -> Destination? {
        value(forKey: checkedRelationship(key)) as! Destination?
    }

    /// A to-many relationship's destinations, by name.
    public func managedValue<Destination: ManagedObject>(forKey key: String) -> Set<Destination> {
        Set((value(forKey: checkedRelationship(key)) as? Set<ManagedObject> ?? []).map { $0 as! Destination })
    }

    /// An ordered to-many relationship's destinations, by name.
    public func managedValue<Destination: ManagedObject>(forKey key: String) -> [Destination] {
        (value(forKey: checkedRelationship(key)) as? [ManagedObject] ?? []).map { $0 as! Destination }
    }

    /// Sets a to-one relationship by name.
    public func setManagedValue<Destination: ManagedObject>(_ destination: Destination?, forKey key: String) {
        checkQueue()
        let index = typedIndex(checkedRelationship(key))
        guard fireFaultIfNeeded() else { return }
        settingRelationship { try setToOne(destination, at: index) }
    }

    /// Sets a to-many relationship by name.
    public func setManagedValue<Destination: ManagedObject>(_ destinations: Set<Destination>, forKey key: String) {
        checkQueue()
        let index = typedIndex(checkedRelationship(key))
        guard fireFaultIfNeeded() else { return }
        settingRelationship { try setToMany(Array(destinations), at: index) }
    }

    /// Sets an ordered to-many relationship by name.
    public func setManagedValue<Destination: ManagedObject>(_ destinations: [Destination], forKey key: String) {
        checkQueue()
        let index = typedIndex(checkedRelationship(key))
        guard fireFaultIfNeeded() else { return }
        settingRelationship { try setToMany(destinations, at: index) }
    }

    private func checkedRelationship(_ key: String) -> String {
        guard entity.properties[typedIndex(key)].relationship != nil else {
            preconditionFailure("\(entity.name).\(key) is an attribute, not a relationship")
        }
        return key
    }
}
