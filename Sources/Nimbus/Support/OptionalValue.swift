/// Unwraps an `Optional` seen as `Any` (a captured predicate value, a dictionary value
/// written `["subtitle": subtitle]` with `subtitle: String?`).
protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedValue: Any? { self.map { $0 as Any } }
}
