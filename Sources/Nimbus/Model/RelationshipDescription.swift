/// A relationship of an entity to another entity.
///
/// For example:
///
/// ```swift
/// RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
/// RelationshipDescription("author", to: "Person", inverse: "posts", deleteRule: .nullify)
/// ```
public struct RelationshipDescription: Sendable, Hashable, Codable {
    /// What happens to the destination when the source object is deleted.
    public enum DeleteRule: String, Sendable, Codable, CaseIterable {
        /// Remove the source from the destinations' inverse relationship.
        case nullify
        /// Delete the destinations too.
        case cascade
        /// Refuse to delete the source while it has destinations.
        case deny
        /// Do nothing; the destinations' inverse may point at a deleted object.
        case noAction
    }

    /// The relationship's name, its key in `value(forKey:)`.
    public var name: String
    /// The name of the destination entity.
    public var destinationEntityName: String
    /// The name of the inverse relationship on the destination entity.
    public var inverseName: String?
    /// Whether the relationship holds many objects.
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its order.
    public var isOrdered: Bool
    /// What deleting the source does to the destinations.
    public var deleteRule: DeleteRule
    /// Whether an empty relationship is allowed on save.
    public var isOptional: Bool
    /// Transient relationships are never stored.
    public var isTransient: Bool
    /// For to-many: the fewest destinations allowed on save (0 = no minimum).
    public var minCount: Int
    /// For to-many: the most destinations allowed on save (0 = no maximum).
    public var maxCount: Int
    /// The relationship's previous name, for lightweight migration.
    public var renamingIdentifier: String?
    /// Changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Free-form information from the model editor.
    public var userInfo: [String: String]

    /// Creates a relationship.
    public init(
        _ name: String,
        to destinationEntityName: String,
        inverse inverseName: String? = nil,
        toMany isToMany: Bool = false,
        ordered isOrdered: Bool = false,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        isTransient: Bool = false,
        minCount: Int = 0,
        maxCount: Int = 0,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.inverseName = inverseName
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.minCount = minCount
        self.maxCount = isToMany ? maxCount : (maxCount == 0 ? 1 : maxCount)
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}

extension RelationshipDescription {
    enum CodingKeys: String, CodingKey {
        case name, destinationEntityName, inverseName, isToMany, isOrdered, deleteRule, isOptional, isTransient
        case minCount, maxCount, renamingIdentifier, versionHashModifier, userInfo
    }

    /// Decodes a relationship; only `name` and `destinationEntityName` are required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try c.decode(String.self, forKey: .name), to: try c.decode(String.self, forKey: .destinationEntityName),
                  inverse: try c.decodeIfPresent(String.self, forKey: .inverseName),
                  toMany: try c.decodeIfPresent(Bool.self, forKey: .isToMany) ?? false,
                  ordered: try c.decodeIfPresent(Bool.self, forKey: .isOrdered) ?? false,
                  deleteRule: try c.decodeIfPresent(DeleteRule.self, forKey: .deleteRule) ?? .nullify,
                  isOptional: try c.decodeIfPresent(Bool.self, forKey: .isOptional) ?? true,
                  isTransient: try c.decodeIfPresent(Bool.self, forKey: .isTransient) ?? false,
                  minCount: try c.decodeIfPresent(Int.self, forKey: .minCount) ?? 0,
                  maxCount: try c.decodeIfPresent(Int.self, forKey: .maxCount) ?? 0,
                  renamingIdentifier: try c.decodeIfPresent(String.self, forKey: .renamingIdentifier),
                  versionHashModifier: try c.decodeIfPresent(String.self, forKey: .versionHashModifier),
                  userInfo: try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:])
    }
}
