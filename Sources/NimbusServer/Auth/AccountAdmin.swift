import Foundation
import NimbusWire

/// User and token administration, as the `nimbus users` and `nimbus tokens` commands use it.
///
/// For example:
/// ```swift
/// let admin = AccountAdmin(storage: storage)
/// _ = try await admin.addUser(name: "alice")
/// let token = try await admin.createToken(userName: "alice", device: "phone")
/// ```
package struct AccountAdmin: Sendable {
    package let storage: any SyncStorage
    package let clock: ServerClock

    package init(storage: any SyncStorage, clock: ServerClock = .system) {
        self.storage = storage
        self.clock = clock
    }

    /// Adds a user; an administrator may sign in to the console (`/console`).
    /// - Throws: `invalidArguments` for a bad or taken name, or a quota outside 0 … 1 EiB;
    ///   `invalidArguments` for an administrator on a backend without the console.
    package func addUser(name: String, quotaBytes: Int64? = nil, administrator: Bool = false) async throws -> UserAccount {
        let name = name.nfc
        if let quotaBytes, !(0...ServerConfiguration.largestQuotaBytes).contains(quotaBytes) {
            throw WireError(.invalidArguments, "The quota \(quotaBytes) is out of range: it must be between 0 and \(ServerConfiguration.largestQuotaBytes) bytes.")
        }
        if let problem = NameRules.problem(with: name) {
            throw WireError(.invalidArguments, "The user name \(problem).")
        }
        let console = storage as? any ConsoleStorage
        if administrator && console == nil {
            throw WireError(.invalidArguments, "Administrators sign in to the console, which needs the SQLite storage; this server uses \(storage.backendName).")
        }
        let user = try await storage.createUser(name: name, quotaBytes: quotaBytes, now: clock.now())
        if administrator { try await console?.setAdministrator(userID: user.id, true) }
        return user
    }

    /// Creates a token for one device of a user and returns it; only its digest is stored.
    /// - Parameters:
    ///   - userName: The user.
    ///   - device: The device's id, stamped on what it saves.
    ///   - expiresInSeconds: The token's lifetime; `nil` for no expiry.
    /// - Throws: `unknownItem` when the user does not exist; `invalidArguments` for a bad device
    ///   name or a lifetime outside 1 s … 100 years.
    package func createToken(userName: String, device: String, expiresInSeconds: Int64? = nil) async throws -> String {
        if let expiresInSeconds, !(1...ServerConfiguration.longestSeconds).contains(expiresInSeconds) {
            throw WireError(
                .invalidArguments,
                "The token lifetime \(expiresInSeconds) s is out of range: it must be between 1 and \(ServerConfiguration.longestSeconds) seconds (100 years).")
        }
        guard let user = try await storage.user(named: userName.nfc) else {
            throw WireError(.unknownItem, "No user named '\(userName)'. Add it with `nimbus users add \(userName)`.")
        }
        if let problem = NameRules.problem(with: device) {
            throw WireError(.invalidArguments, "The device name \(problem).")
        }
        if let console = storage as? any ConsoleStorage, try await console.consoleUser(id: user.id)?.isDisabled == true {
            throw WireError(.permissionFailure, "The user '\(user.name)' is disabled; enable them in the console first.")
        }
        let token = TokenHasher.newToken()
        let now = clock.now()
        _ = try await storage.createToken(
            userID: user.id, device: device, tokenHash: TokenHasher.digest(token),
            expiresAt: expiresInSeconds.map { now + $0 * 1000 }, now: now)
        return token
    }
}
