import Hummingbird
import Logging
import NimbusWire

/// An error that declares the response it becomes, as Hummingbird's `HTTPResponseError` does:
/// ``ErrorMiddleware`` renders it as is, and never guesses a status from a type's name.
///
/// For example:
/// ```swift
/// struct RangeNotSatisfiable: ResponseError {
///     var size: Int64
///     var wireError: WireError { WireError(.invalidArguments, "The range lies outside the asset.") }
///     var status: HTTPResponse.Status { .rangeNotSatisfiable }
///     var headers: HTTPFields { [.contentRange: "bytes */\(size)"] }
/// }
/// ```
package protocol ResponseError: Error {
    /// The body: `{"error": wireError}`.
    var wireError: WireError { get }
    /// The HTTP status; by default the one of the wire error's code.
    var status: HTTPResponse.Status { get }
    /// Headers besides `Content-Type` and `X-Request-Id`; `Retry-After` is added from
    /// ``wireError`` when it has `retryAfter`.
    var headers: HTTPFields { get }
    /// How the failure is logged, with the request id: `nil` for a client's mistake.
    var logLevel: Logger.Level? { get }
}

extension ResponseError {
    package var status: HTTPResponse.Status { .init(code: wireError.code.httpStatus) }
    package var headers: HTTPFields { [:] }
    package var logLevel: Logger.Level? {
        switch wireError.code {
        case .internalError: .error
        case .serviceUnavailable: .warning
        default: nil
        }
    }
}

extension WireError: ResponseError {
    package var wireError: WireError { self }
}

/// A wire error answered with a status of its own (416, 499, 507 for a full disk) and,
/// optionally, a cause that is logged but never sent.
package struct StatusError: ResponseError {
    package var wireError: WireError
    package var status: HTTPResponse.Status
    package var headers: HTTPFields
    package var logLevel: Logger.Level?
    /// The failure underneath, for the log.
    package var underlying: (any Error)?

    /// - Parameters:
    ///   - wireError: The body.
    ///   - status: The status.
    ///   - headers: Extra headers.
    ///   - logLevel: The log level, `nil` for none.
    ///   - underlying: The cause, logged only.
    package init(
        _ wireError: WireError, status: HTTPResponse.Status, headers: HTTPFields = [:], logLevel: Logger.Level? = nil,
        underlying: (any Error)? = nil
    ) {
        self.wireError = wireError
        self.status = status
        self.headers = headers
        self.logLevel = logLevel
        self.underlying = underlying
    }
}
