/// Names the properties of a typed managed object subclass, so that Foundation's
/// `#Predicate` over the class translates to a ``QueryPredicate`` (and so to SQL).
///
/// Swift key paths carry no names on Linux; a class tells which model property each of
/// its key paths reads. The `@Managed` macro writes this for you. By hand:
///
/// ```swift
/// final class Post: ManagedObject, ManagedObjectKeyPathNaming {
///     var title: String? { value(forKey: "title") as? String }
///     var views: Int64 { value(forKey: "views") as? Int64 ?? 0 }
///
///     static func propertyName(for keyPath: AnyKeyPath) -> String? {
///         switch keyPath {
///         case \Post.title: "title"
///         case \Post.views: "views"
///         default: nil
///         }
///     }
/// }
/// let popular = try QueryPredicate(#Predicate<Post> { $0.views > 100 })
/// ```
public protocol ManagedObjectKeyPathNaming: ManagedObject, KeyPathPropertyNaming {
    /// The model property a key path of this class reads, or nil when it reads none.
    static func propertyName(for keyPath: AnyKeyPath) -> String?
}

/// Names the model properties of any type whose key paths a `#Predicate` reads: the
/// requirement of ``ManagedObjectKeyPathNaming`` without the managed object base class,
/// for types that stand for an entity's objects (NimbusData's `@Model` classes).
///
/// ```swift
/// extension Trip: KeyPathPropertyNaming {
///     static func propertyName(for keyPath: AnyKeyPath) -> String? { keyPath == \Trip.name ? "name" : nil }
/// }
/// ```
public protocol KeyPathPropertyNaming {
    /// The model property a key path of this type reads, or nil when it reads none.
    static func propertyName(for keyPath: AnyKeyPath) -> String?
}
