import Foundation
import Hummingbird
import Logging
import NIOCore
import NimbusWire

/// Renders every failure as `{"error":{"code":…,"message":…}}` with its status, and echoes
/// the request id in `X-Request-Id`.
///
/// Errors that declare their response (``ResponseError``: every `WireError`, ``StatusError``)
/// are rendered as they say. Others are classified by their type in
/// ``ErrorClassifier`` (storage outages, a full disk, a client that went away); unknown
/// failures are logged with the request id and answered `internalError` without internals.
package struct ErrorMiddleware: RouterMiddleware {
    package typealias Context = NimbusRequestContext

    package init() {}

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = context.id
            return response
        } catch {
            let failure = Self.responseError(for: error, context: context, request: request)
            if let level = failure.logLevel {
                context.logger.log(
                    level: level, "request failed",
                    metadata: ["code": "\(failure.wireError.code.rawValue)", "status": "\(failure.status.code)", "error": "\(String(reflecting: error))"])
            }
            return try Self.response(for: failure, requestID: context.id)
        }
    }

    /// The response of a failure.
    package static func response(for failure: any ResponseError, requestID: String) throws -> Response {
        let (headers, body) = try rendered(failure, requestID: requestID)
        return Response(status: failure.status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The headers and JSON body of a failure's response.
    package static func rendered(_ failure: any ResponseError, requestID: String) throws -> (headers: HTTPFields, body: ByteBuffer) {
        var headers = failure.headers
        headers[.requestID] = requestID
        headers[.contentType] = "application/json; charset=utf-8"
        if let retryAfter = failure.wireError.retryAfter, let value = retryAfterHeader(retryAfter) {
            headers[.retryAfter] = value
        }
        var wireError = failure.wireError
        if let retryAfter = wireError.retryAfter, retryAfter > Double(longestRetryAfter) { wireError.retryAfter = Double(longestRetryAfter) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (headers, ByteBuffer(bytes: try encoder.encode(ErrorResponse(error: wireError))))
    }

    /// The longest `Retry-After` the server sends: an hour. A longer wait (a rate of one
    /// request a day) is no use to a client, which should retry and read the answer again.
    static let longestRetryAfter = 3600

    /// The `Retry-After` value for a wait in seconds: whole seconds rounded up, between 1 and
    /// ``longestRetryAfter``; `nil` (no header) for a wait that is not finite or not positive,
    /// which converting to an integer would trap on.
    static func retryAfterHeader(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        let whole = seconds.rounded(.up)
        return whole >= Double(longestRetryAfter) ? String(longestRetryAfter) : String(max(1, Int(whole)))
    }

    /// The response a failure becomes.
    static func responseError(for error: any Error, context: Context, request: Request) -> any ResponseError {
        if !context.channel.isActive {
            // Nobody will read the answer: not a server failure, whatever the error says.
            return ErrorClassifier.clientGone(error)
        }
        if let declared = error as? any ResponseError { return declared }
        if let http = error as? HTTPError {
            if http.status == .notFound || http.status == .methodNotAllowed, let refused = ServerRoutes.methodNotAllowed(request) {
                return refused
            }
            switch http.status {
            case .notFound:
                return WireError(.unknownItem, "No route for \(request.method) \(request.uri.path).")
            case .contentTooLarge:
                return WireError(.limitExceeded, "The request body is too large.")
            case .methodNotAllowed:
                return WireError(.invalidArguments, "\(request.method) is not allowed on \(request.uri.path).")
            default:
                return WireError(.invalidArguments, http.body ?? "The request was not understood (\(http.status.code)).")
            }
        }
        if let classified = ErrorClassifier.classify(error) { return classified }
        return StatusError(
            WireError(.internalError, "The server failed unexpectedly; it logged request \(context.id)."),
            status: .internalServerError, logLevel: .error, underlying: error)
    }
}

extension HTTPFields.Element.Name {
    /// `X-Request-Id`.
    package static let requestID = Self("X-Request-Id")!
}
