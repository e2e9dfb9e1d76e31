/// A class that describes its own entity: what the `@Managed` macro makes of a class.
///
/// The macro writes every requirement; a model is then built from the classes alone:
///
/// ```swift
/// @Managed final class Tag: ManagedObject {
///     @Attribute(.unique) var name: String = ""
///     var posts: Set<Post>
/// }
/// let model = try ManagedObjectModel(Post.self, Tag.self)
/// ```
public protocol ManagedEntityClass: ManagedObjectKeyPathNaming {
    /// The name of the class's entity (the class's name unless `@Managed(entityName:)` says
    /// otherwise).
    static var managedEntityName: String { get }
    /// The entity the class's declarations describe, not yet part of a model.
    static func managedEntityDescription() -> EntityDescription
    /// The properties the class's typed accessors read, in the order of their slots
    /// (inherited ones first). A model maps each slot to the property's index in each entity
    /// of the class, so an accessor reads its value without looking a name up.
    static var managedSlotNames: [String] { get }
}
