import Foundation

/// Decides what the search index holds, as Core Data's `NSCoreDataCoreSpotlightDelegate`
/// subclasses do by overriding `attributeSet(for:)`. Every method has a default.
///
/// By default an entity is indexed when one of its attributes is marked
/// ``AttributeDescription/isIndexedBySpotlight``; an entry holds those attributes' values
/// and, as display name, the value of the entity's
/// ``EntityDescription/spotlightDisplayNameProperty``.
///
/// The seed's example folds a photo's tags into the photo's entry, so searching a tag
/// finds the photo, and re-indexes photos when a tag changes:
///
/// ```swift
/// struct PhotoSearch: SearchIndexDelegate {
///     func indexes(_ entity: EntityDescription) -> Bool { ["Photo", "Tag"].contains(entity.name) }
///
///     func searchableItem(for object: ManagedObject) throws -> SearchableItem? {
///         guard object.entity.name == "Photo", var item = try defaultSearchableItem(for: object) else { return nil }
///         let tags = object.value(forKey: "tags") as? Set<ManagedObject> ?? []
///         item.text += tags.compactMap { $0.value(forKey: "name") as? String }
///         return item
///     }
///
///     func objectIDsToReindex(whenChanged object: ManagedObject) throws -> [ManagedObjectID] {
///         guard object.entity.name == "Tag" else { return [] }
///         return (object.value(forKey: "photos") as? Set<ManagedObject> ?? []).map(\.objectID)
///     }
/// }
/// ```
///
/// Methods run on the indexer's background context; objects belong to it.
public protocol SearchIndexDelegate: Sendable {
    /// Whether changes of this entity's objects concern the index (the object's own entry,
    /// or entries that depend on it).
    func indexes(_ entity: EntityDescription) -> Bool

    /// What to index for an object; nil (or an empty item) leaves it out.
    ///
    /// - Throws: any error; the batch is not written and indexing resumes from the same
    ///   place next time.
    func searchableItem(for object: ManagedObject) throws -> SearchableItem?

    /// Other objects whose entries must be rebuilt when this one changes (a tag's photos).
    func objectIDsToReindex(whenChanged object: ManagedObject) throws -> [ManagedObjectID]
}

extension SearchIndexDelegate {
    /// By default: entities with an attribute marked ``AttributeDescription/isIndexedBySpotlight``.
    public func indexes(_ entity: EntityDescription) -> Bool {
        entity.properties.contains { $0.attribute?.isIndexedBySpotlight == true }
    }

    /// By default: ``defaultSearchableItem(for:)``.
    public func searchableItem(for object: ManagedObject) throws -> SearchableItem? {
        try defaultSearchableItem(for: object)
    }

    /// By default: none.
    public func objectIDsToReindex(whenChanged object: ManagedObject) throws -> [ManagedObjectID] { [] }

    /// The default entry: the display name property's value and the values of attributes
    /// marked ``AttributeDescription/isIndexedBySpotlight``; nil for entities with none.
    public func defaultSearchableItem(for object: ManagedObject) throws -> SearchableItem? {
        let entity = object.entity
        let marked = entity.properties.compactMap(\.attribute).filter(\.isIndexedBySpotlight)
        guard !marked.isEmpty else { return nil }
        var item = SearchableItem()
        if let key = entity.spotlightDisplayNameProperty {
            item.displayName = Self.searchText(object.value(forKey: key))
        }
        item.text = marked.compactMap { Self.searchText(object.value(forKey: $0.name)) }
        return item
    }

    /// A value as searchable text: strings as they are, numbers, dates (ISO 8601), UUIDs
    /// and URLs as text; nil for nil and binary data.
    public static func searchText(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let date as Date: ISO8601DateFormatter().string(from: date)
        case let uuid as UUID: uuid.uuidString
        case let url as URL: url.absoluteString
        case let number as any Numeric: "\(number)"
        case let decimal as Decimal: "\(decimal)"
        case let bool as Bool: bool ? "true" : "false"
        default: nil
        }
    }
}

/// The delegate used when none is given: indexes what the model marks.
public struct DefaultSearchIndexDelegate: SearchIndexDelegate {
    /// Creates the default delegate.
    public init() {}
}
