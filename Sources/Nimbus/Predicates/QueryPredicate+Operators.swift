extension QueryPredicate {
    /// Both predicates (`AND`); nested conjunctions are flattened. Useful to join a typed
    /// `#Predicate` with a format predicate for what `#Predicate` cannot say on Linux, such
    /// as case- and diacritic-insensitive search:
    ///
    /// ```swift
    /// let quick = try QueryPredicate(#Predicate<Recipe> { $0.prepMinutes < 30 })
    /// request.predicate = try quick && QueryPredicate(format: "name CONTAINS[cd] %@", search)
    /// ```
    public static func && (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        .and(lhs.conjuncts + rhs.conjuncts)
    }

    /// Either predicate (`OR`); nested disjunctions are flattened.
    public static func || (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        .or(lhs.disjuncts + rhs.disjuncts)
    }

    /// The negation (`NOT`).
    public static prefix func ! (predicate: QueryPredicate) -> QueryPredicate {
        .not(predicate)
    }

    private var conjuncts: [QueryPredicate] {
        if case let .and(parts) = self { parts } else { [self] }
    }

    private var disjuncts: [QueryPredicate] {
        if case let .or(parts) = self { parts } else { [self] }
    }
}
