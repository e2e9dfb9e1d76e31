public import Nimbus
public import Observation

/// A class whose objects are stored: what `@Model` makes of a class. The macro writes
/// every requirement.
///
/// ```swift
/// @Model final class Trip { var name: String = "" }
/// let trips = try context.fetch(FetchDescriptor<Trip>())
/// print(trips.first?.persistentModelID as Any)
/// ```
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable, KeyPathPropertyNaming {
    /// Creates a model over a backing (a fetched object's, when the context materializes it).
    init(backingData: _ModelBacking)
    /// The model's backing: its values before insertion, its managed object after.
    var _nimbusBacking: _ModelBacking { get }
    /// The persisted properties, in declaration order.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// The `#Unique` constraints, as property names.
    static var _nimbusUniqueness: [[String]] { get }
    /// The `#Index` declarations, as property names.
    static var _nimbusIndexes: [[String]] { get }
    /// Tells observers that the named properties changed (a merge, a rollback).
    func _nimbusNotifyObservers(_ keys: Set<String>)
}

extension PersistentModel {
    /// The model's identifier: temporary until the model is first saved, then the stored
    /// object's.
    public var persistentModelID: PersistentIdentifier { _nimbusBacking.identifier(entityName: Self._nimbusEntityName) }

    /// The context the model is inserted in, or nil before insertion.
    public var modelContext: ModelContext? { _nimbusBacking.context }

    /// Whether the model has unsaved changes (a new model not yet saved has).
    public var hasChanges: Bool { _nimbusBacking.hasChanges }

    /// Whether the model was deleted from its context.
    public var isDeleted: Bool { _nimbusBacking.isDeleted }

    /// The model's identity.
    public var id: PersistentIdentifier { persistentModelID }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The entity's name: the class's name.
    static var _nimbusEntityName: String { String(describing: Self.self) }
}
