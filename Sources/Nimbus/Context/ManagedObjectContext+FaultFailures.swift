import Foundation

extension ManagedObjectContext {
    /// Keeps the error of a read that an accessor which cannot throw failed to make.
    func recordFaultFailure(_ error: any Error, for id: ManagedObjectID) {
        let failure = error as? NimbusError
            ?? NimbusError(.sqliteError, "reading \(id) failed: \(error)", underlying: error)
        if faultFailures[id] == nil { faultFailures[id] = failure }
    }

    /// Throws when faults fired by non-throwing accessors failed since the last save,
    /// rollback or reset: edits made through them may be missing, so nothing is saved.
    func checkFaultFailures() throws {
        guard let (_, first) = faultFailures.min(by: { $0.key.description < $1.key.description }) else { return }
        let objects = faultFailures.keys.map(\.description).sorted().joined(separator: ", ")
        throw NimbusError(first.code, "reading \(objects) failed earlier (\(first.message)), so changes made to them "
            + "through accessors that cannot throw may be missing; nothing was saved. Refresh those objects "
            + "(refresh(_:mergeChanges: false)), roll back or reset the context, redo the changes and save again",
            underlying: first)
    }

    /// Throws a merge conflict for objects changed in this context whose rows another
    /// context or process deleted: the edits cannot be saved, and dropping them silently
    /// would lose them.
    func checkEditsOfDeletedRows() throws {
        let conflicts = changedSet.filter { $0.flags.isDeletedInStore && $0.flags.isChanged && !$0.flags.isDeleted && !$0.flags.isInserted }
        guard !conflicts.isEmpty else { return }
        throw NimbusError(.mergeConflict, "the rows of "
            + conflicts.map(\.objectID.description).sorted().joined(separator: ", ")
            + " were deleted by another context or process after they were read, so their changes cannot be saved; "
            + "delete the objects or roll back, then save again")
    }
}
