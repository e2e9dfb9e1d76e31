public import Nimbus

/// Options of a schema property, as `@Attribute` or `@Relationship` give them.
public protocol _SchemaPropertyOptions: Sendable {}

extension Schema {
    /// One persisted property of a `@Model` class, as the macro declares it.
    public struct PropertyMetadata: @unchecked Sendable {
        /// The property's name.
        public let name: String
        /// The key path of the property.
        public let keypath: AnyKeyPath
        /// The initial value the class declares, if any.
        public let defaultValue: Any?
        /// The `@Attribute` or `@Relationship` options, if any.
        public let metadata: (any _SchemaPropertyOptions)?
        /// The property's Swift type.
        public let valueType: Any.Type

        /// Declares a property; `@Model` writes these.
        public init<Root, Value>(name: String, keypath: KeyPath<Root, Value>, defaultValue: Value? = nil,
                                 metadata: (any _SchemaPropertyOptions)? = nil) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue.map { $0 as Any }
            self.metadata = metadata
            self.valueType = Value.self
        }
    }

    /// The options of an attribute (`@Attribute(…)`).
    public struct Attribute: _SchemaPropertyOptions {
        /// An attribute option.
        public struct Option: Hashable, Sendable {
            let name: String
            /// No two models of the entity may have the same value.
            public static let unique = Option(name: "unique")
            /// Large data may be kept in a file beside the store.
            public static let externalStorage = Option(name: "externalStorage")
            /// The value is kept in the history's tombstone when the model is deleted.
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
            /// The text is indexed for search.
            public static let spotlight = Option(name: "spotlight")
            /// Changes are tracked but the value is not stored.
            public static let ephemeral = Option(name: "ephemeral")
            /// Encrypted in the cloud (Nimbus: no effect; see the porting article).
            public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")
        }

        public let options: [Option]
        public let originalName: String?
        public let hashModifier: String?

        /// Options as `@Attribute` takes them.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.options = options
            self.originalName = originalName
            self.hashModifier = hashModifier
        }
    }

    /// The options of a relationship (`@Relationship(…)`).
    public struct Relationship: @unchecked Sendable, _SchemaPropertyOptions {
        /// A relationship option.
        public struct Option: Hashable, Sendable {
            let name: String
            /// The related model is unique (no effect in Nimbus beyond SwiftData's).
            public static let unique = Option(name: "unique")
        }

        /// What deleting a model does to the models it relates to.
        public enum DeleteRule: String, Hashable, Sendable, Codable {
            case nullify, cascade, deny, noAction
        }

        public let options: [Option]
        public let deleteRule: DeleteRule
        public let minimumModelCount: Int?
        public let maximumModelCount: Int?
        public let originalName: String?
        public let inverse: AnyKeyPath?
        public let hashModifier: String?

        /// Options as `@Relationship` takes them.
        public init(_ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
                    maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
                    hashModifier: String? = nil) {
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.originalName = originalName
            self.inverse = inverse
            self.hashModifier = hashModifier
        }
    }
}
