/// A structured error from the server: a stable code, a message that says what happened and
/// how to fix it, and the details some codes carry.
///
/// The server answers a failed request with `{"error": {"code": …, "message": …}}` (see
/// ``ErrorResponse``) and an HTTP status from ``Code/httpStatus``.
///
/// For example:
/// ```swift
/// let failure = try JSONDecoder().decode(ErrorResponse.self, from: body).error
/// if failure.code == .requestRateLimited { try await Task.sleep(for: .seconds(failure.retryAfter ?? 1)) }
/// ```
public struct WireError: Error, Codable, Hashable, Sendable {
    /// The error's code.
    public var code: Code
    /// A human-readable explanation.
    public var message: String
    /// Seconds to wait before retrying, for ``Code/requestRateLimited`` and
    /// ``Code/serviceUnavailable``.
    public var retryAfter: Double?
    /// The server's version of the record, for ``Code/serverRecordChanged``.
    public var serverRecord: Record?
    /// The failed items, for ``Code/partialFailure``.
    public var itemErrors: [ItemError]?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The code.
    ///   - message: What happened and how to fix it.
    ///   - retryAfter: Seconds before a retry may succeed.
    ///   - serverRecord: The server's record, for conflicts.
    ///   - itemErrors: Per-item errors, for partial failures.
    public init(
        _ code: Code,
        _ message: String,
        retryAfter: Double? = nil,
        serverRecord: Record? = nil,
        itemErrors: [ItemError]? = nil
    ) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.serverRecord = serverRecord
        self.itemErrors = itemErrors
    }
}

extension WireError: CustomStringConvertible {
    /// The code and the message, for logs and command-line output.
    public var description: String { "\(code.rawValue): \(message)" }
}
