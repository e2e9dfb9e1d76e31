import Foundation
import GRDB
import Hummingbird
import NIOHTTP1
import NimbusWire
import PostgresNIO

/// Errors of libraries the server uses (GRDB, postgres-nio, NIO, the file system), each
/// mapped by its type and code to the response it becomes: nothing is inferred from a type's
/// name, so a full disk never reads as a database outage.
package enum ErrorClassifier {
    /// The status nginx uses for a client that closed the connection before the answer.
    package static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

    /// A failure while the client's connection was already closed: logged at debug, counted
    /// as 499, never as a server error.
    package static func clientGone(_ error: any Error) -> StatusError {
        StatusError(
            WireError(.invalidArguments, "The client closed the connection before the answer."),
            status: clientClosedRequest, logLevel: .debug, underlying: error)
    }

    /// The response of a known library failure, or `nil` for an unknown one.
    package static func classify(_ error: any Error) -> StatusError? {
        if let parser = error as? HTTPParserError {
            // The request body was cut short: the client hung up (or sent less than it said).
            if parser == .invalidEOFState || parser == .closedConnection { return clientGone(error) }
            return StatusError(WireError(.invalidArguments, "The request is not valid HTTP/1.1 (\(parser))."), status: .badRequest, underlying: error)
        }
        if isDiskFull(error) {
            return StatusError(
                WireError(.serviceUnavailable, "The server's disk is full; retry later.", retryAfter: 60),
                status: .init(code: 507), logLevel: .error, underlying: error)
        }
        if let database = error as? DatabaseError {
            guard database.resultCode == .SQLITE_BUSY || database.resultCode == .SQLITE_LOCKED else { return nil }
            return unavailable("The database is busy; retry shortly.", error)
        }
        if let psql = error as? PSQLError {
            if let state = psql.serverInfo?[.sqlState] {
                let retryable = state.hasPrefix("08") || state.hasPrefix("40") || state.hasPrefix("57") || state.hasPrefix("53")
                return retryable ? unavailable("The database is unavailable (\(state)); retry shortly.", error) : nil
            }
            return unavailable("The database connection failed; retry shortly.", error)
        }
        if error is PostgresError || error is ChannelError || error is NIOConnectionError {
            return unavailable("The database connection failed; retry shortly.", error)
        }
        return nil
    }

    /// Whether the failure is the file system or SQLite running out of space.
    package static func isDiskFull(_ error: any Error) -> Bool {
        if let database = error as? DatabaseError { return database.resultCode == .SQLITE_FULL }
        if let io = error as? IOError { return io.errnoCode == ENOSPC || io.errnoCode == EDQUOT }
        if let posix = error as? POSIXError { return posix.code == .ENOSPC || posix.code == .EDQUOT }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return ns.code == Int(ENOSPC) || ns.code == Int(EDQUOT) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return underlying.code == Int(ENOSPC) || underlying.code == Int(EDQUOT)
        }
        return false
    }

    private static func unavailable(_ message: String, _ error: any Error) -> StatusError {
        StatusError(WireError(.serviceUnavailable, message, retryAfter: 1), status: .serviceUnavailable, logLevel: .warning, underlying: error)
    }
}
