public import Nimbus

/// The model types a container stores, and (for migration) their version.
///
/// ```swift
/// let schema = Schema([Trip.self, BucketListItem.self])
/// let container = try ModelContainer(for: schema)
/// ```
public final class Schema: @unchecked Sendable, Hashable {
    /// A schema version: `Schema.Version(1, 0, 0)`.
    public typealias Version = NimbusData.SchemaVersion

    /// The model types, in the order given (destinations of relationships included).
    public let types: [any PersistentModel.Type]
    /// The schema's version.
    public let version: Version
    /// The entities, one per model type.
    public let entities: [Entity]

    /// Creates a schema of model types and those their relationships reach.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var all: [any PersistentModel.Type] = []
        var seen: Set<ObjectIdentifier> = []
        var queue = types
        while !queue.isEmpty {
            let type = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            all.append(type)
            queue += ModelEntityInfo.destinationTypes(of: type)
        }
        self.types = all
        self.version = version
        self.entities = all.map { Entity(name: String(describing: $0), properties: $0.schemaMetadata.map(\.name)) }
    }

    /// Creates a schema of model types.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// The schema of a versioned schema.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The Nimbus model of the schema's types (entity per class, properties as declared).
    ///
    /// - Throws: an error naming every property whose type cannot be stored, and the
    ///   model's own checks (a missing inverse, say).
    public func makeManagedObjectModel(configurations: [String: [String]] = [:]) throws -> ManagedObjectModel {
        let infos = try types.map { try ModelEntityInfo.info(for: $0) }
        do {
            return try ManagedObjectModel(entities: infos.map(\.entity), configurations: configurations,
                                          versionIdentifiers: [version.description])
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "the schema's models do not make a valid model: \(error)", underlying: error)
        }
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.version == rhs.version && lhs.types.map(ObjectIdentifier.init) == rhs.types.map(ObjectIdentifier.init)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        for type in types { hasher.combine(ObjectIdentifier(type)) }
    }

    /// An entity of a schema.
    public struct Entity: Hashable, Sendable {
        /// The entity's name (the class's name).
        public let name: String
        /// The names of its persisted properties.
        public let properties: [String]
    }
}

/// A semantic version of a schema.
///
/// ```swift
/// static let versionIdentifier = Schema.Version(2, 0, 0)
/// ```
public struct SchemaVersion: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int

    /// Creates a version.
    public init(_ major: Int, _ minor: Int, _ patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }
}
