import Foundation
import Logging
import NimbusWire

/// Account administration over a data folder or PostgreSQL URL, for the command-line tool.
///
/// For example:
/// ```swift
/// let token = try await ServerAdministration.createToken(configuration: configuration, userName: "alice", device: "phone")
/// ```
public enum ServerAdministration {
    /// A user as the command-line tool shows it.
    public struct User: Sendable {
        /// The user's id.
        public var id: Int64
        /// The user's name.
        public var name: String
    }

    /// Adds a user; an administrator may sign in to the console.
    /// - Throws: `invalidArguments` for a bad or taken name, or an administrator on PostgreSQL.
    public static func addUser(configuration: ServerConfiguration, name: String, quotaBytes: Int64?, administrator: Bool = false) async throws -> User {
        try await StorageFactory.withStorage(configuration: configuration, logger: quietLogger) { storage in
            let account = try await AccountAdmin(storage: storage).addUser(name: name, quotaBytes: quotaBytes, administrator: administrator)
            return User(id: account.id, name: account.name)
        }
    }

    /// Creates a device token and returns it; only its SHA-256 is stored.
    /// - Throws: `unknownItem` when the user does not exist.
    public static func createToken(configuration: ServerConfiguration, userName: String, device: String, expiresInSeconds: Int64?) async throws -> String {
        try await StorageFactory.withStorage(configuration: configuration, logger: quietLogger) { storage in
            try await AccountAdmin(storage: storage).createToken(userName: userName, device: device, expiresInSeconds: expiresInSeconds)
        }
    }

    /// Revokes a user's tokens, or one device's.
    /// - Returns: How many tokens were revoked.
    public static func revokeTokens(configuration: ServerConfiguration, userName: String, device: String?) async throws -> Int {
        try await StorageFactory.withStorage(configuration: configuration, logger: quietLogger) { storage in
            guard let user = try await storage.user(named: userName) else {
                throw WireError(.unknownItem, "No user named '\(userName)'.")
            }
            return try await storage.revokeTokens(userID: user.id, device: device)
        }
    }

    private static var quietLogger: Logger {
        var logger = Logger(label: "nimbus.admin")
        logger.logLevel = .warning
        return logger
    }
}
