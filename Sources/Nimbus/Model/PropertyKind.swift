/// What a property is, without its names and rules: small enough to copy without
/// reference counting, for the hot paths of accessors, fetches and saves.
enum PropertyKind: Equatable, Sendable {
    /// A stored or transient attribute of a type (transformable ones use ``transformable``).
    case attribute(AttributeType)
    /// A transformable attribute; its transformer is looked up by name when it is used.
    case transformable
    case toOne
    case toMany(isOrdered: Bool)

    init(_ property: PropertyDescription) {
        switch property {
        case let .attribute(attribute): self = attribute.type == .transformable ? .transformable : .attribute(attribute.type)
        case let .relationship(relationship): self = relationship.isToMany ? .toMany(isOrdered: relationship.isOrdered) : .toOne
        }
    }
}
