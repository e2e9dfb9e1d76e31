import ArgumentParser
import Foundation
import Nimbus
import NimbusCloud
import NimbusServer
import NimbusWire

/// The one place where errors meet exit codes: each ``NimbusError`` and ``CloudError`` code,
/// the CLI's own errors and anything else a library throws, mapped to a class a script can
/// act on, with a line in Nimbus's words (the underlying cause after it).
extension ExitStatus {
    /// The exit status and the message line for `error`; `nil` for ArgumentParser's own
    /// errors (`--help`, usage errors), which it reports itself.
    static func report(for error: any Error) -> (status: ExitStatus, line: String)? {
        switch error {
        case is ExitCode, is CleanExit, is ValidationError: return nil
        case let error as CLIError:
            return (error.status, error.underlying.map { "\(error.message) (cause: \(describe($0)))" } ?? error.message)
        case let error as NimbusError:
            let cause = error.underlying.map { " (cause: \(describe($0)))" } ?? ""
            return (of(error.code), "\(error.code): \(error.message)\(cause)")
        case let error as CloudError:
            var line = "\(error.code): \(error.message)"
            if error.code == .notAuthenticated {
                line += ". Nothing saved on this device is lost: give it a new token "
                    + "(nimbus device login <device-folder> --token <new token>) and the next sync sends its unsent edits"
            }
            if let retryAfter = error.retryAfter { line += " (retry after \(retryAfter) s)" }
            return (of(error), line)
        case let error as WireError:
            // The server's administration (`users`, `tokens`) answers in the wire's terms.
            let status: ExitStatus = switch error.code {
            case .invalidArguments, .unknownItem, .zoneNotFound, .serverRecordChanged, .limitExceeded: .badInput
            case .serviceUnavailable, .requestRateLimited: .retryLater
            case .notAuthenticated, .permissionFailure, .quotaExceeded: .needsUser
            default: .internalError
            }
            return (status, "\(error.code): \(error.message)")
        case let error as SQLiteDatabaseCheck.RefusedError:
            return (.badInput, "\(error)")
        case let error as DataDirectory.AccessError:
            return (.badInput, "\(error)")
        case let error as DataDirectoryLock.LockedError:
            return (.needsUser, "\(error)")
        case let error as DecodingError:
            return (.badInput, "a file Nimbus reads is not in the expected form (cause: \(describe(error)))")
        case let error as CocoaError where [.fileNoSuchFile, .fileReadNoSuchFile, .fileReadNoPermission, .fileWriteNoPermission,
                                              .fileReadInvalidFileName, .fileWriteInvalidFileName, .fileWriteFileExists].contains(error.code):
            return (.badInput, "a file could not be read or written (cause: \(describe(error)))")
        default:
            if isConnectionFailure(error) {
                return (.retryLater, "the connection to the server failed; try again later (cause: \(describe(error)))")
            }
            return (.internalError, "an unexpected error stopped the command; please report it (cause: \(describe(error)))")
        }
    }

    /// The class of a ``NimbusError`` code: what the store refused for its input, or a
    /// failure inside (unknown codes are internal until mapped here).
    static func of(_ code: NimbusError.Code) -> ExitStatus {
        switch code {
        case .validationFailed, .deleteDenied, .unknownEntity, .unknownProperty, .typeMismatch, .invalidPredicate,
             .invalidModel, .modelMismatch, .notADatabase, .storeNotFound, .storeAlreadyAdded, .readOnlyStore,
             .objectNotFound, .invalidObjectID, .invalidArgument, .unsupported, .invalidToken, .noStores,
             .invalidSearchQuery, .constraintConflict, .migrationFailed, .historyPurgeRefused,
             .io: // a file that can't be read is most often a wrong path

            .badInput
        // Another process saved the same objects at the same moment: the command may run again.
        case .mergeConflict: .retryLater
        default: .internalError // corruptStore, sqliteError, wrongContext, inaccessibleFault
        }
    }

    /// The class of a ``CloudError``: retry later, needs the user, bad input or internal.
    static func of(_ error: CloudError) -> ExitStatus {
        switch error.code {
        case .network, .rateLimited, .cancelled, .changeTokenExpired, .zoneNotFound: return .retryLater
        case .notAuthenticated, .permissionFailure, .quotaExceeded, .incompatibleServer, .pendingChanges, .limitExceeded:
            return .needsUser
        case .invalidConfiguration, .unmirrorableModel, .storeNotMirrored, .insecureConnection: return .badInput
        case .server:
            guard let wire = error.wireError else { return .retryLater }
            // The server refuses stamps beyond its clock-skew bound: the device's clock is wrong.
            if error.message.contains("clock-skew") || wire.message.contains("clock-skew") { return .needsUser }
            switch wire.code {
            case .notAuthenticated, .permissionFailure, .quotaExceeded: return .needsUser
            case .invalidArguments, .unknownItem: return .internalError
            default: return .retryLater // serviceUnavailable, internalError, batchRequestFailed, …
            }
        default: return .internalError
        }
    }

    /// Errors of the networking libraries that reach the CLI without a Nimbus error around
    /// them (a connection reset mid-read, `errno 104`): matched by type name, since the CLI
    /// does not link those libraries itself.
    private static func isConnectionFailure(_ error: any Error) -> Bool {
        let type = String(reflecting: Swift.type(of: error))
        return ["NIOCore.IOError", "HTTPClientError", "NIOConnectionError", "ChannelError", "NIOPosix", "WebSocket"]
            .contains { type.contains($0) }
    }

    /// An underlying error as one line.
    static func describe(_ error: any Error) -> String {
        String(describing: error).replacingOccurrences(of: "\n", with: " ")
    }
}
