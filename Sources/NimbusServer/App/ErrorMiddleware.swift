import Foundation
import GRDB
import Hummingbird
import Logging
import NimbusWire
import PostgresNIO

/// Renders every failure as `{"error":{"code":…,"message":…}}` with the code's HTTP status,
/// and echoes the request id in `X-Request-Id`.
///
/// Unknown failures are logged with the request id and answered as `internalError` without
/// internals; storage outages become the retryable `serviceUnavailable`.
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
            let wire = Self.wireError(for: error, context: context, request: request)
            var headers: HTTPFields = [.requestID: context.id]
            if let retryAfter = wire.retryAfter {
                headers[.retryAfter] = String(Int(retryAfter.rounded(.up)))
            }
            return try JSONResponse.make(
                ErrorResponse(error: wire), status: .init(code: wire.code.httpStatus), headers: headers)
        }
    }

    static func wireError(for error: any Error, context: Context, request: Request) -> WireError {
        switch error {
        case let wire as WireError:
            if wire.code == .internalError {
                context.logger.error("internal error", metadata: ["error": "\(wire.message)"])
            }
            return wire
        case let http as HTTPError:
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
        default:
            if let transient = transientStorageFailure(error) {
                context.logger.warning("storage unavailable", metadata: ["error": "\(String(reflecting: error))"])
                return transient
            }
            context.logger.error("unexpected failure", metadata: ["error": "\(String(reflecting: error))"])
            return WireError(.internalError, "The server failed unexpectedly; it logged request \(context.id).")
        }
    }

    /// Storage failures that a retry may clear: a busy SQLite file, a lost or restarting
    /// PostgreSQL connection, a serialization conflict.
    static func transientStorageFailure(_ error: any Error) -> WireError? {
        if let database = error as? DatabaseError,
            database.resultCode == .SQLITE_BUSY || database.resultCode == .SQLITE_LOCKED
        {
            return WireError(.serviceUnavailable, "The database is busy; retry shortly.", retryAfter: 1)
        }
        if let psql = error as? PSQLError {
            if let state = psql.serverInfo?[.sqlState] {
                let retryable = state.hasPrefix("08") || state.hasPrefix("40") || state.hasPrefix("57") || state.hasPrefix("53")
                return retryable ? WireError(.serviceUnavailable, "The database is unavailable (\(state)); retry shortly.", retryAfter: 1) : nil
            }
            return WireError(.serviceUnavailable, "The database connection failed; retry shortly.", retryAfter: 1)
        }
        let name = String(reflecting: type(of: error))
        if name.contains("PostgresNIO") || name.contains("ConnectionPool") || name.contains("NIOCore.ChannelError")
            || name.contains("NIOConnectionError") || name.contains("IOError")
        {
            return WireError(.serviceUnavailable, "The database connection failed; retry shortly.", retryAfter: 1)
        }
        return nil
    }
}

extension HTTPFields.Element.Name {
    /// `X-Request-Id`.
    package static let requestID = Self("X-Request-Id")!
}
