import Foundation

/// What the engine does after a failed sync: a pure decision, tested without I/O.
///
/// Transient failures retry with exponential backoff (capped, honouring the server's
/// `retryAfter`); a missing zone is created again and the replica re-uploaded; failures no
/// retry can fix (a refused token, a full quota, an incompatible server) wait until the app
/// asks again, and surface as events. Nothing is dropped in any case.
enum SyncPolicy {
    enum Decision: Equatable, Sendable {
        /// Try again after this many seconds.
        case retry(after: Double)
        /// Create the zone again and upload everything, then sync.
        case recreateZone
        /// Stop trying until the app or a push asks again.
        case wait
    }

    /// The longest wait between retries.
    static let maximumBackoff = 300.0

    static func decide(_ error: CloudError, attempt: Int) -> Decision {
        switch error.code {
        case .zoneNotFound: return .recreateZone
        case .notAuthenticated, .permissionFailure, .quotaExceeded, .incompatibleServer, .unmirrorableModel, .invalidConfiguration:
            return .wait
        case .rateLimited:
            return .retry(after: min(maximumBackoff, max(error.retryAfter ?? 1, backoff(attempt))))
        default:
            return .retry(after: max(error.retryAfter ?? 0, backoff(attempt)))
        }
    }

    /// 0.5 s doubling per attempt, capped.
    static func backoff(_ attempt: Int) -> Double {
        min(maximumBackoff, 0.5 * pow(2, Double(max(0, min(attempt - 1, 20)))))
    }
}
