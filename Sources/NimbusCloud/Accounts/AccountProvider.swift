import Foundation
import NimbusWire
import Synchronization

/// A signed-in account: who it is (the server's user name) and the device's token for it.
public struct CloudAccount: Sendable, Hashable, Codable {
    /// The account's stable identity (the server's user name); its store files live under it.
    public var identifier: String
    /// The device's bearer token for the account.
    public var token: String

    /// Creates an account.
    public init(identifier: String, token: String) {
        self.identifier = identifier
        self.token = token
    }

    /// Asks the server who `token` belongs to.
    /// - Parameters:
    ///   - token: the device token to check.
    ///   - server: the sync server's URL.
    ///   - containerIdentifier: the container the token is for.
    ///   - allowsInsecureHTTP: Whether plain `http://` to a host other than loopback
    ///     is allowed (see ``CloudContainerOptions/allowsInsecureHTTP``).
    /// - Throws: ``CloudError`` (`notAuthenticated` for a wrong token, `network` when
    ///   unreachable, `insecureConnection` for plain http to another machine not allowed).
    public static func verify(token: String, server: URL, containerIdentifier: String,
                              allowsInsecureHTTP: Bool = false) async throws -> CloudAccount {
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server, containerIdentifier: containerIdentifier,
                                                                     token: token, allowsInsecureHTTP: allowsInsecureHTTP))
        try await transport.checkServer()
        let account = try await transport.account()
        return CloudAccount(identifier: account.userName, token: token)
    }
}

/// Who is signed in, and when that changes. A ``CloudContainer`` with a provider keeps one
/// store per account plus a local store for "no account", and swaps them as the account
/// changes.
///
/// For example:
/// ```swift
/// let accounts = SavedAccountProvider(file: supportFolder.appendingPathComponent("account.json"))
/// container.accountProvider = accounts
/// try await accounts.signIn(CloudAccount.verify(token: token, server: server, containerIdentifier: "posts"))
/// ```
public protocol AccountProvider: AnyObject, Sendable {
    /// The account signed in now, or `nil`.
    var currentAccount: CloudAccount? { get }
    /// Every later change of account (`nil` when signed out), as an asynchronous sequence.
    func accountChanges() -> AsyncStream<CloudAccount?>
}

/// An account provider backed by the device's saved credentials (a JSON file), the default
/// for devices and tests. The file holds a bearer token: it is kept readable by its owner
/// only (mode 0600) in a folder of mode 0700, and a file written looser by an earlier
/// version is tightened when read.
public final class SavedAccountProvider: AccountProvider {
    private let file: URL?
    private let state: Mutex<(account: CloudAccount?, listeners: [UUID: AsyncStream<CloudAccount?>.Continuation])>

    /// A provider that keeps the account in `file` (nothing is saved when `file` is nil).
    /// - Throws: ``CloudError`` with ``CloudError/Code-swift.struct/invalidConfiguration`` when
    ///   the file exists but holds no account (a damaged file is never taken for "signed out").
    public init(file: URL?) throws {
        self.file = file
        var saved: CloudAccount?
        if let file { try CredentialsFile.secureExisting(file) }
        if let file, let data = FileManager.default.contents(atPath: file.path) {
            do { saved = try JSONDecoder().decode(CloudAccount.self, from: data) } catch {
                throw CloudError(.invalidConfiguration, "\(file.path) does not hold a saved account (\(error)); sign in again to replace it")
            }
        }
        state = Mutex((saved, [:]))
    }

    public var currentAccount: CloudAccount? { state.withLock { $0.account } }

    public func accountChanges() -> AsyncStream<CloudAccount?> {
        let (stream, continuation) = AsyncStream<CloudAccount?>.makeStream()
        let id = UUID()
        state.withLock { $0.listeners[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) } }
        return stream
    }

    /// Signs in (or switches to) `account`.
    public func signIn(_ account: CloudAccount) throws { try change(to: account) }

    /// Signs out.
    public func signOut() throws { try change(to: nil) }

    private func change(to account: CloudAccount?) throws {
        if let file {
            if let account { try CredentialsFile.write(try JSONEncoder().encode(account), to: file) }
            else if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
        let listeners = state.withLock { state -> [AsyncStream<CloudAccount?>.Continuation] in
            state.account = account
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.yield(account) }
    }
}
