import Foundation

/// How a save resolves conflicts: rows that changed in the store since the context read
/// them (optimistic locking), and new objects that share a uniqueness constraint's values
/// with a stored row or with each other.
///
/// Set one on a context; the default is ``error``. For example:
///
/// ```swift
/// context.mergePolicy = .mergeByPropertyObjectTrump   // upserts on uniqueness constraints
/// ```
///
/// Subclass to decide yourself: override a `resolve` method, change the objects through
/// the context (their values, or delete them), then call `super` to let the policy's
/// ``type`` settle the rest. The context reads the store again and retries the save.
///
/// ```swift
/// final class KeepLongestTitle: MergePolicy {
///     override func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
///         for conflict in conflicts { … }
///         try super.resolve(optimisticLockingConflicts: conflicts, in: context)
///     }
/// }
/// ```
open class MergePolicy: @unchecked Sendable {
    /// The built-in behaviours, as Core Data names them.
    public enum PolicyType: Sendable, Hashable {
        /// The save fails with ``NimbusError/Code-swift.struct/mergeConflict`` or
        /// ``NimbusError/Code-swift.struct/constraintConflict``, listing every conflict.
        case error
        /// Property by property, values changed in the store win over the context's changes;
        /// the context's other changes are kept. A new object that duplicates a stored row
        /// becomes that row, with the store's values.
        case mergeByPropertyStoreTrump
        /// Property by property, the context's changes win; values changed in the store that
        /// the context did not change are kept. A new object that duplicates a stored row
        /// becomes that row with its own values (an upsert).
        case mergeByPropertyObjectTrump
        /// The context's whole version of each object replaces the store's.
        case overwrite
        /// The context's changes to conflicting objects are dropped: they take the store's values.
        case rollback
    }

    /// The built-in behaviour this policy applies (after a subclass's own work).
    public let type: PolicyType

    /// Creates a policy of a built-in type.
    public init(type: PolicyType) {
        self.type = type
    }

    /// Fails on any conflict (the default).
    public static let error = MergePolicy(type: .error)
    /// Store changes win, property by property.
    public static let mergeByPropertyStoreTrump = MergePolicy(type: .mergeByPropertyStoreTrump)
    /// The context's changes win, property by property; upserts on uniqueness constraints.
    public static let mergeByPropertyObjectTrump = MergePolicy(type: .mergeByPropertyObjectTrump)
    /// The context's objects replace the store's rows.
    public static let overwrite = MergePolicy(type: .overwrite)
    /// The context's conflicting changes are dropped.
    public static let rollback = MergePolicy(type: .rollback)

    /// Resolves rows that changed (or were deleted) in the store since the context read them.
    ///
    /// Runs on the context's queue, after the failed attempt was rolled back. The base
    /// implementation sets each conflicting object's values as ``type`` says; a row deleted
    /// in the store stays deleted under every type but ``PolicyType/error`` (see decision 0032).
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/mergeConflict`` under ``PolicyType/error``.
    open func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
        if type == .error {
            var error = NimbusError(.mergeConflict, "the store changed since these objects were read: "
                + conflicts.map(\.description).joined(separator: "; ")
                + "; refresh them and save again, or set the context's mergePolicy")
            error.mergeConflicts = conflicts
            throw error
        }
        for conflict in conflicts {
            guard let object = context.registeredObject(for: conflict.objectID), var values = object.values else { continue }
            guard let persisted = conflict.persistedSnapshot else { continue }
            for (index, property) in object.entity.properties.enumerated() where property.relationship?.isToMany != true && !property.isTransient {
                let name = property.name
                let old = conflict.cachedSnapshot[name] ?? .null
                let store = persisted[name] ?? .null
                switch type {
                case .mergeByPropertyStoreTrump:
                    if store != old { values[index] = store }
                case .mergeByPropertyObjectTrump:
                    if values[index] == old { values[index] = store }
                case .rollback:
                    values[index] = store
                case .overwrite, .error:
                    continue
                }
            }
            object.values = values
        }
    }

    /// Resolves uniqueness constraint violations among the save's new and changed objects.
    ///
    /// The base implementation, for every type but ``PolicyType/error``, makes the objects
    /// that share a constraint's values into one: the stored row when there is one (the
    /// first new object takes its ID), else the first new object; the others are removed
    /// from the context and references to them follow the survivor. Object trump and
    /// overwrite keep the new objects' values (later objects over earlier ones); store trump
    /// and rollback keep the stored values. To-many relationships gain the members of all.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/constraintConflict`` under ``PolicyType/error``;
    ///   the error of a read of a stored row that fails (the save then fails with it).
    open func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
        if type == .error {
            // The objects are in `constraintConflicts`; the message speaks the model's words.
            var error = NimbusError(.constraintConflict, conflicts.map(\.summary).joined(separator: "; ")
                + "; nothing was saved (change or delete the duplicates, or set the context's mergePolicy: mergeByPropertyObjectTrump upserts)")
            error.constraintConflicts = conflicts
            throw error
        }
        let objectWins = type == .mergeByPropertyObjectTrump || type == .overwrite
        for conflict in conflicts {
            try context.unifyDuplicates(conflict, objectWins: objectWins)
        }
    }
}
