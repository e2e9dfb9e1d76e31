/// An attribute or a relationship of an entity.
public enum PropertyDescription: Sendable, Hashable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)

    /// The property's name.
    public var name: String {
        switch self {
        case let .attribute(attribute): attribute.name
        case let .relationship(relationship): relationship.name
        }
    }

    /// The attribute, if this is one.
    public var attribute: AttributeDescription? {
        if case let .attribute(attribute) = self { attribute } else { nil }
    }

    /// The relationship, if this is one.
    public var relationship: RelationshipDescription? {
        if case let .relationship(relationship) = self { relationship } else { nil }
    }

    /// Whether the property is transient (never stored).
    public var isTransient: Bool {
        switch self {
        case let .attribute(attribute): attribute.isTransient
        case let .relationship(relationship): relationship.isTransient
        }
    }
}
