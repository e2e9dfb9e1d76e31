import Foundation

/// An object whose row changed in the store after the context read it (an optimistic
/// locking conflict), with its values at each stage, as Core Data's `NSMergeConflict`.
///
/// Snapshots hold stored attributes and to-one relationships (as ``PropertyValue/object(_:)``)
/// by property name. For example:
///
/// ```swift
/// catch let error as NimbusError where error.code == .mergeConflict {
///     for conflict in error.mergeConflicts {
///         print(conflict.objectID, conflict.cachedSnapshot["title"], conflict.objectSnapshot["title"], conflict.persistedSnapshot?["title"])
///     }
/// }
/// ```
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The object in conflict.
    public var objectID: ManagedObjectID
    /// The version (`Z_OPT`) the context read.
    public var oldVersionNumber: Int64
    /// The version in the store now; 0 when the row was deleted.
    public var newVersionNumber: Int64
    /// The values the context last read from the store (the "old" values).
    public var cachedSnapshot: [String: PropertyValue]
    /// The object's values in the context (the "new" values being saved).
    public var objectSnapshot: [String: PropertyValue]
    /// The values in the store now; nil when the row was deleted.
    public var persistedSnapshot: [String: PropertyValue]?

    public var description: String {
        let changed = objectSnapshot.keys.sorted().filter { objectSnapshot[$0] != cachedSnapshot[$0] || persistedSnapshot?[$0] != cachedSnapshot[$0] }
        let details = changed.map { key in
            "\(key): old \(Self.text(cachedSnapshot[key])), new \(Self.text(objectSnapshot[key])), store \(persistedSnapshot.map { Self.text($0[key]) } ?? "deleted")"
        }
        return "\(objectID) (version \(oldVersionNumber) → \(newVersionNumber == 0 ? "deleted" : String(newVersionNumber)))"
            + (details.isEmpty ? "" : " {" + details.joined(separator: "; ") + "}")
    }

    static func text(_ value: PropertyValue?) -> String {
        switch value {
        case nil, .null?: "nil"
        case let .string(text)?: "\"\(text)\""
        case let .integer(number)?: String(number)
        case let .double(number)?: String(number)
        case let .bool(flag)?: String(flag)
        case let .object(id)?: id.description
        case let value?: "\(value)"
        }
    }
}

/// Objects that would break a uniqueness constraint, as Core Data's `NSConstraintConflict`:
/// new (or changed) objects of the save that share the constrained values with each other
/// or with a row already in the store.
public struct ConstraintConflict: Sendable, CustomStringConvertible {
    /// The constrained properties.
    public var constraint: [String]
    /// The values they share.
    public var constraintValues: [String: PropertyValue]
    /// The row already in the store with those values, if any.
    public var databaseObjectID: ManagedObjectID?
    /// That row's values, if any.
    public var databaseSnapshot: [String: PropertyValue]?
    /// The objects of the save that carry the values, in insertion order.
    public var conflictingObjectIDs: [ManagedObjectID]
    /// Their values, in the same order.
    public var conflictingSnapshots: [[String: PropertyValue]]

    public var description: String {
        summary + "; shared by \(conflictingObjectIDs.map(\.description).joined(separator: ", "))"
            + (databaseObjectID.map { " and the stored \($0)" } ?? "")
    }

    /// The conflict in the words of the model, without object IDs.
    var summary: String {
        let values = constraint.map { "\($0) = \(MergeConflict.text(constraintValues[$0]))" }.joined(separator: ", ")
        let entity = (conflictingObjectIDs.first ?? databaseObjectID)?.entity.name ?? "object"
        let names = constraint.joined(separator: ", ")
        let another = databaseObjectID == nil ? "other new \(entity) objects have" : "another \(entity) already has"
        return "\(another) the same \(names) (\(values)): \(entity)'s uniqueness constraint (\(names)) allows one object per value"
    }
}
