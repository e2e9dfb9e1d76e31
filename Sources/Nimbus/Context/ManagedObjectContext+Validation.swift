extension ManagedObjectContext {
    /// Validates every inserted and updated object; throws one error listing them all.
    func validateForSave() throws {
        var failures: [NimbusError.ValidationFailure] = []
        // Changed objects are never in the inserted set too (new objects count as inserted).
        func collect(_ object: ManagedObject, _ check: () throws -> Void) throws {
            do { try check() } catch let error as NimbusError where error.code == .validationFailed {
                // An override may throw its own error without listing failures: it counts as one.
                failures += error.validationFailures.isEmpty
                    ? [.init(objectID: object.objectID, entityName: object.entity.name, property: "", reason: error.message)] : error.validationFailures
            }
        }
        for object in pendingInsertions() where !object.flags.isDeletedInStore {
            try collect(object, object.validateForInsert)
        }
        for object in changedSet where !object.flags.isDeleted && !object.flags.isDeletedInStore && !insertedSet.contains(object) {
            guard object.hasPersistentChangedValues else { continue }
            try collect(object, object.validateForUpdate)
        }
        guard failures.isEmpty else {
            failures.sort { ($0.objectID, $0.property) < ($1.objectID, $1.property) }
            var error = NimbusError(.validationFailed, "\(failures.count) validation failure(s): "
                + failures.map(\.description).joined(separator: "; "))
            error.validationFailures = failures
            throw error
        }
    }
}

extension ManagedObjectContext {
    /// Asks every deleted object whether it may be deleted; throws one error listing them all.
    func validateDeletes() throws {
        var failures: [NimbusError.ValidationFailure] = []
        for object in deletedSet where !object.flags.isInserted {
            do { try object.validateForDelete() } catch let error as NimbusError where error.code == .validationFailed {
                failures += error.validationFailures.isEmpty
                    ? [.init(objectID: object.objectID, entityName: object.entity.name, property: "", reason: error.message)] : error.validationFailures
            }
        }
        guard failures.isEmpty else {
            var error = NimbusError(.validationFailed, "\(failures.count) delete validation failure(s): "
                + failures.map(\.description).joined(separator: "; "))
            error.validationFailures = failures
            throw error
        }
    }
}

extension ManagedObject {
    /// Throws every failure of ``validationFailures()`` as one error.
    func throwValidationFailures() throws {
        let failures = try validationFailures()
        guard !failures.isEmpty else { return }
        var error = NimbusError(.validationFailed, failures.map(\.description).joined(separator: "; "))
        error.validationFailures = failures
        throw error
    }

    /// The model's rules for one value of a property.
    func validateModelRules(_ value: Any?, forKey key: String) throws {
        let index = try propertyIndex(key)
        guard let attribute = entity.properties[index].attribute else { return }
        let converted = try PropertyValue(value, for: attribute.type, transformerName: attribute.valueTransformerName)
        if let reason = attribute.validationFailure(for: converted) {
            var error = NimbusError(.validationFailed, "\(entity.name).\(key): \(reason)")
            error.validationFailures = [.init(objectID: objectID, entityName: entity.name, property: key, reason: reason)]
            throw error
        }
    }

    /// Every property of the object that fails its model's rules.
    func validationFailures() throws -> [NimbusError.ValidationFailure] {
        try fireFault()
        guard let values else { return [] }
        var failures: [NimbusError.ValidationFailure] = []
        func fail(_ property: String, _ reason: String) {
            failures.append(.init(objectID: objectID, entityName: entity.name, property: property, reason: reason))
        }
        let isSubclassed = type(of: self) != ManagedObject.self
        if isSubclassed {
            // Attributes without model rules may have rules of the subclass's own.
            for index in entity.attributeIndexes where !entity.validatedIndexes.contains(index) {
                guard let attribute = entity.properties[index].attribute, !attribute.isTransient else { continue }
                var value = values[index].anyValue(for: attribute.type, transformerName: attribute.valueTransformerName)
                do { try validateValue(&value, forKey: attribute.name) } catch let error as NimbusError where error.code == .validationFailed {
                    fail(attribute.name, error.validationFailures.first?.reason ?? error.message)
                }
            }
        }
        for index in entity.validatedIndexes {
            switch entity.properties[index] {
            case let .attribute(attribute) where isSubclassed:
                // Subclasses may refine validateValue(_:forKey:): ask it.
                var value = values[index].anyValue(for: attribute.type, transformerName: attribute.valueTransformerName)
                do { try validateValue(&value, forKey: attribute.name) } catch let error as NimbusError where error.code == .validationFailed {
                    fail(attribute.name, error.validationFailures.first?.reason ?? error.message)
                }
            case let .attribute(attribute):
                if let reason = attribute.validationFailure(for: values[index]) { fail(attribute.name, reason) }
            case let .relationship(relationship) where relationship.isToMany:
                // As in Core Data, "optional" is about nil, and a to-many is never nil: an empty
                // set passes; only minimum and maximum counts constrain how many it holds.
                guard relationship.minCount > 0 || relationship.maxCount > 0 else { continue }
                try loadToManyIfNeeded(index)
                guard case let .objects(ids) = self.values![index] else { continue }
                if relationship.minCount > 0 && (!ids.isEmpty || !relationship.isOptional) && ids.count < relationship.minCount {
                    fail(relationship.name, "has \(ids.count) objects, fewer than the minimum \(relationship.minCount)")
                }
                if relationship.maxCount > 0 && ids.count > relationship.maxCount {
                    fail(relationship.name, "has \(ids.count) objects, more than the maximum \(relationship.maxCount)")
                }
            case let .relationship(relationship):
                if !relationship.isOptional && values[index].isNull { fail(relationship.name, "is required") }
            }
        }
        for reason in validateForSave() { fail(reason.property, reason.reason) }
        return failures
    }
}
