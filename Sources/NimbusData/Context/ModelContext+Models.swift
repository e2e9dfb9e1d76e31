public import Nimbus

extension ModelContext {
    /// The model of a managed object of this context, made on first use.
    func model(for object: ManagedObject) -> any PersistentModel {
        if let known = registeredModel(of: object) { return known }
        let entityName = object.entity.name
        guard let type = container.modelTypes[entityName] else {
            preconditionFailure("\(entityName) has no model class in the container's schema")
        }
        let model = type.init(backingData: _ModelBacking(object: object, context: self))
        register(model, for: object)
        return model
    }

    func registeredModel(of object: ManagedObject) -> (any PersistentModel)? {
        registry.withLock { $0[ObjectIdentifier(object)]?.model }
    }

    func register(_ model: any PersistentModel, for object: ManagedObject) {
        registry.withLock { $0[ObjectIdentifier(object)] = WeakModel(model: model) }
    }

    /// The model with an identifier, read from the store when this context has none yet.
    ///
    /// ```swift
    /// let trip = context.model(for: id) as? Trip
    /// ```
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        guard let objectID = persistentModelID.objectID else {
            preconditionFailure("\(persistentModelID) is of a model never inserted; insert it first")
        }
        return performed { model(for: managedObjectContext.object(with: objectID)) }
    }

    /// The model with an identifier when this context has it already, else nil.
    ///
    /// ```swift
    /// let trip: Trip? = context.registeredModel(for: id)
    /// ```
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let objectID = persistentModelID.objectID else { return nil }
        return performed {
            managedObjectContext.registeredObject(for: objectID).map { model(for: $0) } as? T
        }
    }

    // MARK: Values

    /// A property's value read from a managed object, as the model's Swift type (nil for
    /// a nil value).
    func storedValue<Model: PersistentModel>(forKey key: String, of object: ManagedObject, as model: Model.Type) -> Any? {
        let info = ModelEntityInfo.known(Model.self)
        guard let property = info.properties[key] else { preconditionFailure("\(Model.self) has no persisted property \(key)") }
        return performed {
            let stored = object.value(forKey: key)
            switch property.kind {
            case let .builtin(attributeType, swiftType):
                guard let stored, let value = try? PropertyValue(stored, for: attributeType) else { return nil }
                return swiftType.init(managedValue: value)
            case let .raw(enumType, attributeType, rawType):
                guard let stored, let value = try? PropertyValue(stored, for: attributeType),
                      let raw = rawType.init(managedValue: value) else { return nil }
                return makeRaw(enumType, raw)
            case .codable:
                return stored
            case .toOne:
                return (stored as? ManagedObject).map { self.model(for: $0) }
            case let .toMany(_, arrayType):
                let objects: [ManagedObject] = switch stored {
                case let set as Set<ManagedObject>: set.sorted { $0.objectID < $1.objectID }
                case let array as [ManagedObject]: array
                default: []
                }
                return arrayType._make(objects.map { self.model(for: $0) })
            }
        }
    }

    /// Writes a property's value (a model's Swift value) into a managed object.
    func setStoredValue(_ value: Any, forKey key: String, of object: ManagedObject) {
        guard let info = container.modelTypes[object.entity.name].map(ModelEntityInfo.known),
              let property = info.properties[key] else {
            preconditionFailure("\(object.entity.name) has no persisted property \(key)")
        }
        let value = unwrapped(value)
        performed {
            switch property.kind {
            case let .builtin(attributeType, _), let .raw(_, attributeType, _):
                let stored = value.flatMap { ModelEntityInfo.storedValue($0, kind: property.kind) }?.anyValue(for: attributeType)
                object.setValue(stored, forKey: key)
            case .codable:
                object.setValue(value, forKey: key)
            case .toOne:
                guard let model = value as? any PersistentModel else {
                    object.setValue(nil, forKey: key)
                    return
                }
                insertModel(model)
                object.setValue(model._nimbusBacking.object, forKey: key)
            case .toMany:
                let models = value.map(_ModelBacking.models(in:)) ?? []
                for model in models { insertModel(model) }
                object.setValue(models.compactMap { $0._nimbusBacking.object }, forKey: key)
            }
        }
        didChange()
    }
}

private func makeRaw<R: RawRepresentable>(_ type: R.Type, _ raw: Any) -> Any? {
    (raw as? R.RawValue).flatMap(R.init(rawValue:))
}
