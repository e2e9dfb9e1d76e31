import Foundation
import NIOConcurrencyHelpers

/// The console's signed-in administrators, kept in memory: a restart signs everyone out
/// (decision server-0021).
///
/// A session is found by the random value of the `nimbus_console` cookie; each carries its
/// own CSRF token, which every form posts back.
///
/// For example:
/// ```swift
/// let session = sessions.open(userID: 1, userName: "root", now: clock.now())
/// sessions.session(id: session.id, now: clock.now())?.csrf == session.csrf  // true
/// ```
package final class ConsoleSessions: Sendable {
    /// One signed-in administrator.
    package struct Session: Hashable, Sendable {
        package var id: String
        package var userID: Int64
        package var userName: String
        package var csrf: String
        package var expiresAt: Int64
    }

    /// How long a session lasts (ms): 8 hours.
    package static let lifetime: Int64 = 8 * 3600 * 1000
    /// At most this many sessions are kept; the oldest go first.
    package static let maximumCount = 1000

    private let sessions = NIOLockedValueBox<[String: Session]>([:])

    package init() {}

    /// Opens a session for an administrator.
    package func open(userID: Int64, userName: String, now: Int64) -> Session {
        let session = Session(
            id: Self.randomToken(), userID: userID, userName: userName, csrf: Self.randomToken(),
            expiresAt: now + Self.lifetime)
        sessions.withLockedValue { sessions in
            sessions = sessions.filter { $0.value.expiresAt > now }
            if sessions.count >= Self.maximumCount,
                let oldest = sessions.values.min(by: { $0.expiresAt < $1.expiresAt }) {
                sessions.removeValue(forKey: oldest.id)
            }
            sessions[session.id] = session
        }
        return session
    }

    /// The live session with this id, or `nil`.
    package func session(id: String?, now: Int64) -> Session? {
        guard let id else { return nil }
        return sessions.withLockedValue { sessions in
            guard let session = sessions[id] else { return nil }
            if session.expiresAt <= now {
                sessions.removeValue(forKey: id)
                return nil
            }
            return session
        }
    }

    /// Ends a session.
    package func close(id: String) {
        _ = sessions.withLockedValue { $0.removeValue(forKey: id) }
    }

    /// Ends every session of a user (disabled, or no longer an administrator).
    package func closeAll(userID: Int64) {
        sessions.withLockedValue { $0 = $0.filter { $0.value.userID != userID } }
    }

    /// 32 random bytes as lowercase hexadecimal.
    package static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
