/// The body of every failed response: `{"error": {"code": …, "message": …}}`.
///
/// For example:
/// ```swift
/// let error = try JSONDecoder().decode(ErrorResponse.self, from: body).error
/// ```
public struct ErrorResponse: Codable, Hashable, Sendable {
    /// The error.
    public var error: WireError

    /// Wraps an error.
    /// - Parameter error: The error.
    public init(error: WireError) {
        self.error = error
    }
}
