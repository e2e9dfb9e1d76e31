/// Builds a model's entities from a block.
///
/// ```swift
/// let model = ManagedObjectModel {
///     EntityDescription("Tag") { AttributeDescription("name", .string) }
/// }
/// ```
@resultBuilder
public enum ModelBuilder {
    public static func buildExpression(_ entity: EntityDescription) -> [EntityDescription] { [entity] }
    public static func buildBlock(_ parts: [EntityDescription]...) -> [EntityDescription] { parts.flatMap { $0 } }
    public static func buildArray(_ parts: [[EntityDescription]]) -> [EntityDescription] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [EntityDescription]?) -> [EntityDescription] { part ?? [] }
    public static func buildEither(first: [EntityDescription]) -> [EntityDescription] { first }
    public static func buildEither(second: [EntityDescription]) -> [EntityDescription] { second }
}

/// Builds an entity's properties and fetch indexes from a block.
///
/// ```swift
/// EntityDescription("Post") {
///     AttributeDescription("title", .string, isOptional: false)
///     RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
///     FetchIndexDescription(name: "byTitle", elements: [.init("title")])
/// }
/// ```
@resultBuilder
public enum EntityBuilder {
    /// One thing declared in an entity block.
    public enum Component: Sendable {
        case attribute(AttributeDescription)
        case relationship(RelationshipDescription)
        case index(FetchIndexDescription)
    }
    public static func buildExpression(_ attribute: AttributeDescription) -> [Component] { [.attribute(attribute)] }
    public static func buildExpression(_ relationship: RelationshipDescription) -> [Component] { [.relationship(relationship)] }
    public static func buildExpression(_ index: FetchIndexDescription) -> [Component] { [.index(index)] }
    public static func buildBlock(_ parts: [Component]...) -> [Component] { parts.flatMap { $0 } }
    public static func buildArray(_ parts: [[Component]]) -> [Component] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Component]?) -> [Component] { part ?? [] }
    public static func buildEither(first: [Component]) -> [Component] { first }
    public static func buildEither(second: [Component]) -> [Component] { second }
}
