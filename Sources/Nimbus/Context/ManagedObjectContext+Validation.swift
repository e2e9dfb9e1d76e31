extension ManagedObjectContext {
    /// Validates every inserted and updated object; throws one error listing them all.
    func validateForSave() throws {
        var failures: [NimbusError.ValidationFailure] = []
        // Changed objects are never in the inserted set too (new objects count as inserted).
        for object in insertedSet where !object.flags.isDeleted && !object.flags.isDeletedInStore {
            failures += try object.validationFailures()
        }
        for object in changedSet where !object.flags.isDeleted && !object.flags.isDeletedInStore && !insertedSet.contains(object) {
            failures += try object.validationFailures()
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

extension ManagedObject {
    /// Every property of the object that fails its model's rules.
    func validationFailures() throws -> [NimbusError.ValidationFailure] {
        try fireFault()
        guard let values else { return [] }
        var failures: [NimbusError.ValidationFailure] = []
        func fail(_ property: String, _ reason: String) {
            failures.append(.init(objectID: objectID, entityName: entity.name, property: property, reason: reason))
        }
        for index in entity.validatedIndexes {
            switch entity.properties[index] {
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
