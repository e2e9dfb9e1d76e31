extension ManagedObjectContext {
    /// Applies delete rules to deleted objects: cascade deletes destinations, nullify
    /// removes the deleted object from inverses, deny refuses the delete.
    ///
    /// Called by ``save()``; call it to see the effect of deletes before saving.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/deleteDenied`` naming each blocking
    ///   relationship; the context is left as it was before the deletes were processed.
    public func processPendingChanges() throws {
        checkQueue()
        defer {
            endEvent()
            notifyChangeObservers()
        }
        var denied: [String] = []
        var processed: Set<ManagedObject> = []
        var pending = Array(deletedSet.filter { !processedDeletes.contains($0) })
        for object in pending { object.prepareForDeletion() }
        // Check deny rules first, over the whole cascade, so nothing changes when denied.
        var cascade = Set(pending)
        var queue = pending
        while let object = queue.popLast() {
            try object.fireFault()
            for index in object.entity.properties.indices {
                guard let relationship = object.entity.properties[index].relationship, !relationship.isTransient else { continue }
                let destinations = try destinationIDs(of: object, at: index)
                switch relationship.deleteRule {
                case .deny:
                    let blocking = destinations.filter { id in !cascade.contains { $0.objectID == id } }
                    if !blocking.isEmpty {
                        denied.append("\(object.entity.name).\(relationship.name) of \(object.objectID) still holds \(blocking.count) object(s)")
                    }
                case .cascade:
                    for id in destinations {
                        let destination = self.object(with: id)
                        if cascade.insert(destination).inserted {
                            if !destination.flags.isDeleted { destination.prepareForDeletion() }
                            queue.append(destination)
                        }
                    }
                case .nullify, .noAction:
                    continue
                }
            }
        }
        guard denied.isEmpty else {
            throw NimbusError(.deleteDenied, "delete denied: " + denied.sorted().joined(separator: "; "))
        }
        // Apply: mark the cascade deleted, then nullify inverses.
        for object in cascade where !object.flags.isDeleted {
            recordTouch(object)
            object.flags.isDeleted = true
            deletedSet.insert(object)
        }
        pending = Array(cascade)
        for object in pending where processed.insert(object).inserted {
            for index in object.entity.properties.indices {
                guard let relationship = object.entity.properties[index].relationship, !relationship.isTransient,
                      relationship.deleteRule != .noAction, let inverse = object.entity.inverse(of: relationship) else { continue }
                for id in try destinationIDs(of: object, at: index) {
                    let destination = self.object(with: id)
                    if destination.flags.isDeleted { continue }
                    destination.inverseRemove(object.objectID, relationship: inverse)
                }
            }
            processedDeletes.insert(object)
        }
    }

    /// The destinations of a relationship; a failed read throws (it never passes for none).
    private func destinationIDs(of object: ManagedObject, at index: Int) throws -> [ManagedObjectID] {
        guard let relationship = object.entity.properties[index].relationship else { return [] }
        if relationship.isToMany {
            try object.loadToManyIfNeeded(index)
            if case let .objects(ids) = object.values?[index] { return ids }
            return []
        }
        if case let .object(id) = object.values?[index] { return [id] }
        return []
    }
}
