import Foundation
import Synchronization

/// An attribute of an entity: its name, type, optionality, default and validation rules.
///
/// For example:
///
/// ```swift
/// AttributeDescription("title", .string, isOptional: false, maxLength: 200)
/// AttributeDescription("rating", .integer16, defaultValue: 0, minValue: 0, maxValue: 5)
/// ```
public struct AttributeDescription: Sendable, Hashable, Codable {
    /// The attribute's name, its key in `value(forKey:)`.
    public var name: String
    /// The type of its values.
    public var type: AttributeType
    /// Whether nil is allowed on save. Core Data's default is `true`.
    public var isOptional: Bool
    /// Transient attributes live in memory only and are never stored.
    public var isTransient: Bool
    /// The value a new object starts with.
    public var defaultValue: PropertyValue?
    /// For numbers and dates: the smallest value allowed.
    public var minValue: Double?
    /// For numbers and dates: the largest value allowed.
    public var maxValue: Double?
    /// For strings and binary data: the shortest length allowed.
    public var minLength: Int?
    /// For strings and binary data: the longest length allowed.
    public var maxLength: Int?
    /// For strings: a regular expression the whole value must match.
    public var regularExpression: String?
    /// For binary data: large values may live in files beside the store.
    public var allowsExternalBinaryDataStorage: Bool
    /// The value is kept in the history tombstone when the object is deleted.
    public var preservesValueInHistoryOnDeletion: Bool
    /// For transformable attributes: the name a `Codable` type is registered under.
    public var valueTransformerName: String?
    /// For transformable attributes: the class Xcode records (`customClassName`: `NSArray`,
    /// `[String]`, `UIColor`, …), which `nimbus codegen` types the property by. Does not
    /// change the version hash.
    public var customClassName: String?
    /// The attribute's previous name, for lightweight migration.
    public var renamingIdentifier: String?
    /// Changes the version hash without changing the schema.
    public var versionHashModifier: String?
    /// Free-form information from the model editor.
    public var userInfo: [String: String]
    /// Whether the attribute's text goes into the store's search index (Core Data's
    /// `isIndexedBySpotlight`; Xcode's "Index in Spotlight"). See ``SearchIndexer``.
    /// Does not change the version hash.
    public var isIndexedBySpotlight: Bool
    /// For a derived attribute (Xcode's "Derived"), the expression its value is computed
    /// from on every save of the object, as Core Data does: a key path of the entity or of a
    /// to-one destination (`author.name`), a to-many count (`tags.@count`), `now()`, or
    /// `lowercase:`/`uppercase:`/`canonical:` of a string key path. Does not change the
    /// version hash. For example: `AttributeDescription("tagCount", .integer64, derivationExpression: "tags.@count")`.
    public var derivationExpression: String?

    /// Creates an attribute.
    public init(
        _ name: String,
        _ type: AttributeType,
        isOptional: Bool = true,
        isTransient: Bool = false,
        defaultValue: Any? = nil,
        minValue: Double? = nil,
        maxValue: Double? = nil,
        minLength: Int? = nil,
        maxLength: Int? = nil,
        regularExpression: String? = nil,
        allowsExternalBinaryDataStorage: Bool = false,
        preservesValueInHistoryOnDeletion: Bool = false,
        valueTransformerName: String? = nil,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:],
        isIndexedBySpotlight: Bool = false,
        derivationExpression: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.isTransient = isTransient
        self.defaultValue = defaultValue.flatMap { try? PropertyValue($0, for: type, transformerName: valueTransformerName) }
        self.minValue = minValue
        self.maxValue = maxValue
        self.minLength = minLength
        self.maxLength = maxLength
        self.regularExpression = regularExpression
        self.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        self.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        self.valueTransformerName = valueTransformerName
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.isIndexedBySpotlight = isIndexedBySpotlight
        self.derivationExpression = derivationExpression
    }

    /// Returns why `value` is not valid for this attribute, or nil when it is.
    func validationFailure(for value: PropertyValue) -> String? {
        if value.isNull {
            return isOptional ? nil : "is required"
        }
        switch value {
        case let .integer(int):
            if let range = type.integerRange, !range.contains(int) { return "\(int) is out of range for \(type.rawValue)" }
            return rangeFailure(Double(int))
        case let .double(double):
            // SQLite keeps NaN as NULL: saved, it would read back as nil (a required value as
            // nothing at all). Refused here, clearly, instead of changed silently.
            if double.isNaN { return "is NaN, which a store can't keep (SQLite reads it back as nil); save nil or a number" }
            return rangeFailure(double)
        case let .decimal(decimal): return rangeFailure(NSDecimalNumber(decimal: decimal).doubleValue)
        case let .date(date):
            if date.timeIntervalSinceReferenceDate.isNaN { return "is an invalid date (NaN), which a store can't keep" }
            return rangeFailure(date.timeIntervalSinceReferenceDate)
        case let .string(string):
            if minLength != nil || maxLength != nil, let failure = lengthFailure(string.count, unit: "characters") { return failure }
            if let pattern = regularExpression {
                guard let regex = RegularExpressionCache.regex(pattern) else { return "has an invalid pattern \(pattern)" }
                let range = NSRange(string.startIndex..., in: string)
                let match = regex.firstMatch(in: string, options: [.anchored], range: range)
                if match?.range != range { return "does not match \(pattern)" }
            }
            return nil
        case let .data(data): return lengthFailure(data.count, unit: "bytes")
        default: return nil
        }
    }

    private func rangeFailure(_ number: Double) -> String? {
        if let minValue, number < minValue { return "\(number) is less than the minimum \(minValue)" }
        if let maxValue, number > maxValue { return "\(number) is more than the maximum \(maxValue)" }
        return nil
    }

    private func lengthFailure(_ length: Int, unit: String) -> String? {
        if let minLength, length < minLength { return "is \(length) \(unit), shorter than the minimum \(minLength)" }
        if let maxLength, length > maxLength { return "is \(length) \(unit), longer than the maximum \(maxLength)" }
        return nil
    }
}

extension AttributeDescription {
    enum CodingKeys: String, CodingKey {
        case name, type, isOptional, isTransient, defaultValue, minValue, maxValue, minLength, maxLength
        case regularExpression, allowsExternalBinaryDataStorage, preservesValueInHistoryOnDeletion
        case valueTransformerName, renamingIdentifier, versionHashModifier, userInfo, isIndexedBySpotlight, customClassName
        case derivationExpression
    }

    /// Decodes an attribute; only `name` and `type` are required.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try c.decode(String.self, forKey: .name), try c.decode(AttributeType.self, forKey: .type))
        isOptional = try c.decodeIfPresent(Bool.self, forKey: .isOptional) ?? true
        isTransient = try c.decodeIfPresent(Bool.self, forKey: .isTransient) ?? false
        defaultValue = try c.decodeIfPresent(PropertyValue.self, forKey: .defaultValue)
        minValue = try c.decodeIfPresent(Double.self, forKey: .minValue)
        maxValue = try c.decodeIfPresent(Double.self, forKey: .maxValue)
        minLength = try c.decodeIfPresent(Int.self, forKey: .minLength)
        maxLength = try c.decodeIfPresent(Int.self, forKey: .maxLength)
        regularExpression = try c.decodeIfPresent(String.self, forKey: .regularExpression)
        allowsExternalBinaryDataStorage = try c.decodeIfPresent(Bool.self, forKey: .allowsExternalBinaryDataStorage) ?? false
        preservesValueInHistoryOnDeletion = try c.decodeIfPresent(Bool.self, forKey: .preservesValueInHistoryOnDeletion) ?? false
        valueTransformerName = try c.decodeIfPresent(String.self, forKey: .valueTransformerName)
        renamingIdentifier = try c.decodeIfPresent(String.self, forKey: .renamingIdentifier)
        versionHashModifier = try c.decodeIfPresent(String.self, forKey: .versionHashModifier)
        userInfo = try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:]
        isIndexedBySpotlight = try c.decodeIfPresent(Bool.self, forKey: .isIndexedBySpotlight) ?? false
        customClassName = try c.decodeIfPresent(String.self, forKey: .customClassName)
        derivationExpression = try c.decodeIfPresent(String.self, forKey: .derivationExpression)
    }

    /// Encodes an attribute; `isIndexedBySpotlight` only when set, so models without search
    /// encode as before.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(type, forKey: .type)
        try c.encode(isOptional, forKey: .isOptional)
        try c.encode(isTransient, forKey: .isTransient)
        try c.encodeIfPresent(defaultValue, forKey: .defaultValue)
        try c.encodeIfPresent(minValue, forKey: .minValue)
        try c.encodeIfPresent(maxValue, forKey: .maxValue)
        try c.encodeIfPresent(minLength, forKey: .minLength)
        try c.encodeIfPresent(maxLength, forKey: .maxLength)
        try c.encodeIfPresent(regularExpression, forKey: .regularExpression)
        try c.encode(allowsExternalBinaryDataStorage, forKey: .allowsExternalBinaryDataStorage)
        try c.encode(preservesValueInHistoryOnDeletion, forKey: .preservesValueInHistoryOnDeletion)
        try c.encodeIfPresent(valueTransformerName, forKey: .valueTransformerName)
        try c.encodeIfPresent(renamingIdentifier, forKey: .renamingIdentifier)
        try c.encodeIfPresent(versionHashModifier, forKey: .versionHashModifier)
        try c.encode(userInfo, forKey: .userInfo)
        if isIndexedBySpotlight { try c.encode(true, forKey: .isIndexedBySpotlight) }
        try c.encodeIfPresent(customClassName, forKey: .customClassName)
        try c.encodeIfPresent(derivationExpression, forKey: .derivationExpression)
    }
}


/// Compiled validation patterns, shared by every object of every model.
enum RegularExpressionCache {
    private final class Box: @unchecked Sendable {
        let regex: NSRegularExpression?
        init(_ regex: NSRegularExpression?) { self.regex = regex }
    }
    private static let cache = Mutex<[String: Box]>([:])

    static func regex(_ pattern: String) -> NSRegularExpression? {
        cache.withLock { cache in
            if let box = cache[pattern] { return box.regex }
            let box = Box(try? NSRegularExpression(pattern: pattern))
            cache[pattern] = box
            return box.regex
        }
    }
}
