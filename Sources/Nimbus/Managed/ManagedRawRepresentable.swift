/// A `RawRepresentable` type (most often an enum) that a `@Managed` class stores as its raw
/// value: an `Int16` enum is an `integer16` attribute, a `String` enum a `string` one. What
/// Core Data apps write by hand as a raw attribute beside a computed property, in one
/// declaration; unlike a `Codable` (transformable) value, it can be fetched, sorted and
/// indexed by.
///
/// ```swift
/// enum Difficulty: Int16, ManagedRawRepresentable { case easy, medium, hard }
///
/// @Managed final class Recipe: ManagedObject {
///     var difficulty: Difficulty = .easy
///     var course: Course?               // Course: String, ManagedRawRepresentable
/// }
///
/// let hard = Difficulty.hard            // #Predicate cannot name an enum case itself
/// let request = try FetchRequest<Recipe>(entityName: "Recipe", predicate: #Predicate<Recipe> { $0.difficulty == hard })
/// ```
///
/// In predicates a value of the type compares as its raw value (`#Predicate` captures, also
/// in an array for `contains`, format arguments, `setValue(_:forKey:)`); compare the value
/// itself rather than its `rawValue`. Sort with `FetchSortDescriptor(\Recipe.difficulty)`:
/// by raw value.
///
/// The protocol refines `Codable` and `Sendable`, which `#Predicate` asks of the values it
/// captures (an enum with a raw type gets both without writing them).
///
/// A stored raw value the type has no case for (written by a newer version of the app, and
/// synced here) reads nil through an optional property, and the declared default value
/// through a required one; the stored value is kept until the property is set. A required
/// property with no stored value and no default stops the process: give it a default.
public protocol ManagedRawRepresentable: ManagedAttributeValue, RawRepresentable, Codable, Sendable where RawValue: ManagedAttributeValue {}

extension ManagedRawRepresentable {
    public static var managedAttributeType: AttributeType { RawValue.managedAttributeType }

    /// A required property of the type has no value to read while it is nil.
    public static var managedNilValue: Self {
        preconditionFailure("a required \(Self.self) attribute read nil (never set): give it a default value, or declare it optional")
    }

    @inlinable public init?(managedValue: PropertyValue) {
        guard let rawValue = RawValue(managedValue: managedValue) else { return nil }
        self.init(rawValue: rawValue)
    }

    @inlinable public var managedValue: PropertyValue { rawValue.managedValue }

    /// The raw value, for code that holds the value as an existential.
    var managedRawValue: Any { rawValue }
}
