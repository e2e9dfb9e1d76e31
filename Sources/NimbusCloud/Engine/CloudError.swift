import Foundation
import NimbusWire

/// An error of mirroring: a stable code, a message that says what happened and how to fix
/// it, and the server's error when there was one.
///
/// For example:
/// ```swift
/// do { try await container.syncNow() } catch let error as CloudError where error.code == .notAuthenticated {
///     print("sign in again:", error.message)
/// }
/// ```
public struct CloudError: Error, Sendable, CustomStringConvertible {
    /// A stable error code; new codes never break the API.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case network, server, notAuthenticated, permissionFailure, quotaExceeded, rateLimited
            case incompatibleServer, unmirrorableModel, zoneNotFound, changeTokenExpired, limitExceeded
            case invalidConfiguration, storeNotMirrored, cancelled, pendingChanges, insecureConnection
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The server could not be reached (refused, timed out, cut).
        public static let network = Code(.network)
        /// The server answered with an error that has no code of its own here.
        public static let server = Code(.server)
        /// The token is wrong, expired or revoked.
        public static let notAuthenticated = Code(.notAuthenticated)
        /// The account may not do this.
        public static let permissionFailure = Code(.permissionFailure)
        /// The account's storage quota is full.
        public static let quotaExceeded = Code(.quotaExceeded)
        /// The server asked the device to slow down (see ``CloudError/retryAfter``).
        public static let rateLimited = Code(.rateLimited)
        /// The server speaks another protocol version.
        public static let incompatibleServer = Code(.incompatibleServer)
        /// The model can't be mirrored (the message names the entity and the reason).
        public static let unmirrorableModel = Code(.unmirrorableModel)
        /// The zone does not exist on the server (deleted elsewhere).
        public static let zoneNotFound = Code(.zoneNotFound)
        /// The change token is older than the server's tombstone horizon.
        public static let changeTokenExpired = Code(.changeTokenExpired)
        /// A request or record passed the server's limits.
        public static let limitExceeded = Code(.limitExceeded)
        /// The cloud options or device folder are not usable.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The object or store is not mirrored.
        public static let storeNotMirrored = Code(.storeNotMirrored)
        /// Changes made here are not on the server yet (a rebuild would lose them).
        public static let pendingChanges = Code(.pendingChanges)
        /// The server URL is plain `http://` to a host other than this machine (loopback):
        /// the token and data would cross the network unencrypted. Use `https://`, or opt in
        /// with ``CloudContainerOptions/allowsInsecureHTTP``.
        public static let insecureConnection = Code(.insecureConnection)
        /// The work was cancelled.
        public static let cancelled = Code(.cancelled)

        public var description: String { value.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// What happened and how to fix it.
    public var message: String
    /// When the server asked to wait, how many seconds.
    public var retryAfter: Double?
    /// The server's error, when the server answered with one.
    public var wireError: WireError?

    /// Creates an error.
    public init(_ code: Code, _ message: String, retryAfter: Double? = nil, wireError: WireError? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.wireError = wireError
    }

    /// Maps a server error to a mirroring error.
    init(_ wire: WireError) {
        let code: Code = switch wire.code {
        case .notAuthenticated: .notAuthenticated
        case .permissionFailure: .permissionFailure
        case .quotaExceeded: .quotaExceeded
        case .requestRateLimited: .rateLimited
        case .zoneNotFound: .zoneNotFound
        case .changeTokenExpired: .changeTokenExpired
        case .limitExceeded: .limitExceeded
        default: .server
        }
        self.init(code, "the server answered \(wire.code.rawValue): \(wire.message)", retryAfter: wire.retryAfter, wireError: wire)
    }

    public var description: String { "\(code): \(message)" }

    /// Whether retrying later may succeed without anyone doing anything.
    public var isTransient: Bool {
        [.network, .server, .rateLimited, .limitExceeded].contains(code)
    }
}
