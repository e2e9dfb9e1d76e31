public import Nimbus

/// Makes a class a persistent model: each stored property (unless `@Transient`) is stored
/// in the model's entity, the class becomes ``PersistentModel`` and `Observable`.
///
/// ```swift
/// @Model final class Trip {
///     @Attribute(.unique) var name: String
///     var startDate: Date = Date.now
///     @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
///     init(name: String) { self.name = name }
/// }
/// let trip = Trip(name: "Paris")
/// context.insert(trip)
/// ```
@attached(member, names: named(_$backingData), named(_$observationRegistrar), named(_nimbusBacking), named(init),
          named(schemaMetadata), named(_nimbusUniqueness), named(_nimbusIndexes), named(propertyName(for:)),
          named(_nimbusNotifyObservers))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "NimbusMacros", type: "ModelMacro")

/// Options of a stored attribute of a `@Model` class.
///
/// ```swift
/// @Attribute(.unique) var code: String
/// @Attribute(.externalStorage) var photo: Data?
/// @Attribute(originalName: "title") var name: String
/// ```
@attached(peer)
public macro Attribute(_ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil) =
    #externalMacro(module: "NimbusMacros", type: "ModelMarkerMacro")

/// Options of a relationship of a `@Model` class.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
/// ```
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option..., deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0, maximumModelCount: Int? = 0, originalName: String? = nil,
    inverse: AnyKeyPath? = nil, hashModifier: String? = nil
) = #externalMacro(module: "NimbusMacros", type: "ModelMarkerMacro")

/// A stored property of a `@Model` class that is not persisted (it needs an initial value).
///
/// ```swift
/// @Transient var isExpanded = false
/// ```
@attached(peer)
public macro Transient() = #externalMacro(module: "NimbusMacros", type: "ModelMarkerMacro")

/// Uniqueness constraints of a `@Model` class: each list of key paths is unique together.
///
/// ```swift
/// #Unique<Person>([\.email], [\.givenName, \.familyName])
/// ```
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "NimbusMacros", type: "ModelEntityOptionMacro")

/// Fetch indexes of a `@Model` class: one index per list of key paths.
///
/// ```swift
/// #Index<Trip>([\.name], [\.startDate, \.endDate])
/// ```
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "NimbusMacros", type: "ModelEntityOptionMacro")

/// The accessors of a persisted property; `@Model` adds it.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(`_$persisted_`))
public macro _PersistedProperty() = #externalMacro(module: "NimbusMacros", type: "PersistedPropertyMacro")

/// The stored marker of a persisted property's initialization; `@Model` adds one per property.
public struct _PersistedSlot: Sendable {
    public init() {}
}
