import Foundation

extension QueryPredicate {
    /// Translates a Foundation `#Predicate` over a typed managed object class into the
    /// predicate the equivalent format string gives, so it runs as the same SQL.
    ///
    /// The class names its key paths with ``ManagedObjectKeyPathNaming``. Comparisons,
    /// `&&`, `||`, `!`, optional chaining, `??`, `contains` (strings and captured arrays),
    /// `starts(with:)`, ranges, `count`, `isEmpty` and `+ - *` translate; anything else
    /// throws rather than being evaluated in memory. For example:
    ///
    /// ```swift
    /// let names = ["Ada", "Grace"]
    /// let predicate = try QueryPredicate(#Predicate<Person> { names.contains($0.name) && $0.age >= 18 })
    /// // the same as try QueryPredicate(format: "name IN %@ AND age >= 18", names)
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` naming the construct that
    ///   has no SQL translation.
    public init<Object: ManagedObject>(_ predicate: Predicate<Object>) throws {
        var translation = SwiftPredicateTranslation()
        translation.variables[predicate.variable.key] = .evaluatedObject
        self = try translation.predicate(predicate.expression)
    }

    /// Translates a Foundation `#Predicate` over any type that names its key paths
    /// (``KeyPathPropertyNaming``), such as a NimbusData `@Model` class.
    ///
    /// ```swift
    /// let predicate = try QueryPredicate(translating: #Predicate<Trip> { $0.name == "Paris" })
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` naming the construct that
    ///   has no SQL translation.
    public init<Object: KeyPathPropertyNaming>(translating predicate: Predicate<Object>) throws {
        var translation = SwiftPredicateTranslation()
        translation.variables[predicate.variable.key] = .evaluatedObject
        self = try translation.predicate(predicate.expression)
    }
}

extension FetchRequest {
    /// Creates a request whose predicate is a Foundation `#Predicate` over a typed class.
    ///
    /// ```swift
    /// let request = try FetchRequest<Post>(entityName: "Post", predicate: #Predicate<Post> { $0.views > 100 })
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` when the predicate has no
    ///   SQL translation (see ``QueryPredicate/init(_:)``).
    public init<Object: ManagedObject>(entityName: String, predicate: Predicate<Object>) throws {
        self.init(entityName: entityName)
        self.predicate = try QueryPredicate(predicate)
    }

    /// Sets the predicate from a Foundation `#Predicate` over a typed class.
    ///
    /// ```swift
    /// try request.setPredicate(#Predicate<Post> { $0.title?.starts(with: "Swift") ?? false })
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` when the predicate has no
    ///   SQL translation; the request's predicate is then left as it was.
    public mutating func setPredicate<Object: ManagedObject>(_ predicate: Predicate<Object>) throws {
        self.predicate = try QueryPredicate(predicate)
    }
}
