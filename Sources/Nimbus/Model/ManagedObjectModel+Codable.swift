import Foundation

/// The JSON form of a model: what `nimbus store create --model model.json` reads and what
/// a store keeps in `Z_MODELCACHE`, so tools open a store without the app's model.
///
/// ```swift
/// let data = try JSONEncoder().encode(model)
/// let copy = try JSONDecoder().decode(ManagedObjectModel.self, from: data)
/// ```
extension ManagedObjectModel: Codable {
    private struct Document: Codable {
        var format: Int?
        var versionIdentifiers: [String]?
        var configurations: [String: [String]]?
        var entities: [Entity]
        /// ``ManagedObjectModel/unsupportedFeatures``, so tools reading a store's model see them.
        var notes: [String]?
        var fetchRequestTemplates: [FetchRequestTemplate]?
    }

    private struct Entity: Codable {
        var name: String
        var parent: String?
        var isAbstract: Bool?
        var className: String?
        var attributes: [AttributeDescription]?
        var relationships: [RelationshipDescription]?
        var fetchIndexes: [FetchIndexDescription]?
        var uniquenessConstraints: [[String]]?
        var renamingIdentifier: String?
        var versionHashModifier: String?
        var userInfo: [String: String]?
        var spotlightDisplayNameProperty: String?
        var fetchedProperties: [FetchedPropertyDescription]?
    }

    public convenience init(from decoder: any Decoder) throws {
        let document = try Document(from: decoder)
        let entities = document.entities.map { e in
            EntityDescription(e.name, parent: e.parent, isAbstract: e.isAbstract ?? false, className: e.className,
                              attributes: e.attributes ?? [], relationships: e.relationships ?? [],
                              fetchIndexes: e.fetchIndexes ?? [], uniquenessConstraints: e.uniquenessConstraints ?? [],
                              renamingIdentifier: e.renamingIdentifier, versionHashModifier: e.versionHashModifier,
                              userInfo: e.userInfo ?? [:], spotlightDisplayNameProperty: e.spotlightDisplayNameProperty,
                              fetchedProperties: e.fetchedProperties ?? [])
        }
        let templates = Dictionary((document.fetchRequestTemplates ?? []).map { ($0.name, $0) }) { _, last in last }
        try self.init(entities: entities, configurations: document.configurations ?? [:],
                      versionIdentifiers: Set(document.versionIdentifiers ?? []), unsupportedFeatures: document.notes ?? [],
                      fetchRequestTemplates: templates)
    }

    public func encode(to encoder: any Encoder) throws {
        let document = Document(
            format: 1,
            versionIdentifiers: versionIdentifiers.isEmpty ? nil : versionIdentifiers.sorted(),
            configurations: configurations.isEmpty ? nil : configurations,
            entities: entities.map { e in
                Entity(name: e.name, parent: e.superentityName, isAbstract: e.isAbstract ? true : nil,
                       className: e.managedObjectClassName, attributes: e.declaredAttributes,
                       relationships: e.declaredRelationships,
                       fetchIndexes: e.fetchIndexes.isEmpty ? nil : e.fetchIndexes,
                       uniquenessConstraints: e.uniquenessConstraints.isEmpty ? nil : e.uniquenessConstraints,
                       renamingIdentifier: e.renamingIdentifier, versionHashModifier: e.versionHashModifier,
                       userInfo: e.userInfo.isEmpty ? nil : e.userInfo,
                       spotlightDisplayNameProperty: e.spotlightDisplayNameProperty,
                       fetchedProperties: e.fetchedProperties.isEmpty ? nil : e.fetchedProperties)
            },
            notes: unsupportedFeatures.isEmpty ? nil : unsupportedFeatures,
            fetchRequestTemplates: fetchRequestTemplates.isEmpty ? nil : fetchRequestTemplates.values.sorted { $0.name < $1.name })
        try document.encode(to: encoder)
    }

    /// Returns a copy whose entities use the given classes (by entity name), for models
    /// decoded from JSON or read from a store.
    public func withClasses(_ classes: [String: ManagedObject.Type]) throws -> ManagedObjectModel {
        let entities = entities.map { e in
            EntityDescription(e.name, parent: e.superentityName, isAbstract: e.isAbstract,
                              class: classes[e.name] ?? e.managedObjectClass, className: e.managedObjectClassName,
                              attributes: e.declaredAttributes, relationships: e.declaredRelationships,
                              fetchIndexes: e.fetchIndexes, uniquenessConstraints: e.uniquenessConstraints,
                              renamingIdentifier: e.renamingIdentifier, versionHashModifier: e.versionHashModifier,
                              userInfo: e.userInfo, spotlightDisplayNameProperty: e.spotlightDisplayNameProperty,
                              fetchedProperties: e.fetchedProperties)
        }
        return try ManagedObjectModel(entities: entities, configurations: configurations,
                                      versionIdentifiers: versionIdentifiers, unsupportedFeatures: unsupportedFeatures,
                                      fetchRequestTemplates: fetchRequestTemplates)
    }
}

extension PropertyValue: Codable {
    private enum Key: String, CodingKey { case integer, double, decimal, string, bool, date, data, uuid, url }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() { self = .null; return }
        let c = try decoder.container(keyedBy: Key.self)
        guard let key = c.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "empty value"))
        }
        switch key {
        case .integer: self = .integer(try c.decode(Int64.self, forKey: key))
        case .double: self = .double(try c.decode(Double.self, forKey: key))
        case .decimal: self = .decimal(Decimal(string: try c.decode(String.self, forKey: key)) ?? 0)
        case .string: self = .string(try c.decode(String.self, forKey: key))
        case .bool: self = .bool(try c.decode(Bool.self, forKey: key))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try c.decode(Double.self, forKey: key)))
        case .data: self = .data(Data(base64Encoded: try c.decode(String.self, forKey: key)) ?? Data())
        case .uuid: self = .uuid(try c.decode(UUID.self, forKey: key))
        case .url: self = .url(try c.decode(URL.self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null, .object, .objects:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
            return
        default: break
        }
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .null, .object, .objects: break
        case let .integer(v): try c.encode(v, forKey: .integer)
        case let .double(v): try c.encode(v, forKey: .double)
        case let .decimal(v): try c.encode("\(v)", forKey: .decimal)
        case let .string(v): try c.encode(v, forKey: .string)
        case let .bool(v): try c.encode(v, forKey: .bool)
        case let .date(v): try c.encode(v.timeIntervalSinceReferenceDate, forKey: .date)
        case let .data(v): try c.encode(v.base64EncodedString(), forKey: .data)
        case let .uuid(v): try c.encode(v, forKey: .uuid)
        case let .url(v): try c.encode(v, forKey: .url)
        }
    }
}

