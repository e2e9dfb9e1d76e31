/// Makes a `ManagedObject` subclass a typed model class: each stored property becomes a
/// typed accessor of the object's storage, and the class describes its entity.
///
/// Attributes are properties of a ``ManagedAttributeValue`` type (optional or with a
/// default: `var title: String?`, `var views: Int64 = 0`), an enum stored as its raw value
/// (``ManagedRawRepresentable``) or a `Codable` value (``ManagedTransformable``); relationships are optional
/// `@Managed` classes (to-one), `Set`s of them (to-many) or arrays (ordered to-many).
/// Options come from ``Attribute(_:originalName:)`` and
/// ``Relationship(deleteRule:inverse:minimumCount:maximumCount:originalName:)``. For example:
///
/// ```swift
/// @Managed final class Post: ManagedObject {
///     @Attribute(.indexed) var title: String?
///     var views: Int64 = 0
///     @Relationship(deleteRule: .nullify, inverse: \Tag.posts) var tags: Set<Tag>
///     var author: Person?
/// }
///
/// let model = try ManagedObjectModel(Post.self, Tag.self, Person.self)
/// let post = Post(context: context)
/// post.title = "Hello"
/// let popular = try Post.fetchRequest().execute()
/// let request = try FetchRequest<Post>(entityName: "Post", predicate: #Predicate<Post> { $0.views > 100 })
/// ```
///
/// - Parameters:
///   - entityName: The entity's name; the class's name by default.
///   - isAbstract: Whether the entity is abstract (only sub-entities have instances).
@attached(member, names: named(managedEntityName), named(managedSlotNames), named(managedEntityDescription),
          named(propertyName(for:)), arbitrary)
@attached(memberAttribute)
@attached(extension, conformances: ManagedEntityClass)
public macro Managed(entityName: String? = nil, isAbstract: Bool = false) =
    #externalMacro(module: "NimbusMacros", type: "ManagedMacro")

/// Options of an attribute of a `@Managed` class.
///
/// ```swift
/// @Attribute(.unique) var email: String?
/// @Attribute(.externalStorage) var photo: Data?
/// @Attribute(.transient) var cachedScore: Double = 0
/// @Attribute(originalName: "name") var title: String?
/// ```
@attached(peer)
public macro Attribute(_ options: ManagedAttributeOption..., originalName: String? = nil) =
    #externalMacro(module: "NimbusMacros", type: "ManagedOptionsMacro")

/// Options of a relationship of a `@Managed` class.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Attachment.post) var attachments: [Attachment]
/// ```
@attached(peer)
public macro Relationship(
    deleteRule: RelationshipDescription.DeleteRule = .nullify, inverse: AnyKeyPath? = nil,
    minimumCount: Int = 0, maximumCount: Int = 0, originalName: String? = nil
) = #externalMacro(module: "NimbusMacros", type: "ManagedOptionsMacro")

/// The accessors of one stored property of a `@Managed` class; `@Managed` adds it.
@attached(accessor, names: named(init), named(get), named(set))
public macro _ManagedProperty(slot: Int) = #externalMacro(module: "NimbusMacros", type: "ManagedPropertyMacro")
