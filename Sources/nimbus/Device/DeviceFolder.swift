import Foundation
import Nimbus
import NimbusCloud
import NimbusWire

/// A device folder (`nimbus device init`): its configuration, a copy of its model, and one
/// store file per configuration of the model (mirrored, unless the configuration is local).
struct DeviceFolder {
    /// `device.json`.
    struct Configuration: Codable {
        var server: URL
        var container: String
        var database: DatabaseScope = .private
        var zone: String = CloudContainerOptions.defaultZoneName
        /// Configurations whose store stays on the device.
        var localConfigurations: [String] = []
        /// Whether plain `http://` to a server other than loopback was allowed explicitly
        /// (`--allow-insecure-http`); absent in folders made before the option.
        var allowsInsecureHTTP: Bool?

        /// The shared folder the device syncs through instead of a server (`--folder`);
        /// then ``server`` is the folder's file URL and the device has no account.
        var folder: String?
        /// A file holding the folder's encryption key (`--folder-key-file`: 32 bytes, or 64
        /// hexadecimal digits); logs are plain when absent.
        var folderKeyFile: String?

        var insecureHTTPAllowed: Bool { allowsInsecureHTTP ?? false }
    }

    /// Whether the device syncs through a shared folder (no server, no account).
    var syncsThroughFolder: Bool { configuration.folder != nil }

    let url: URL
    let configuration: Configuration
    let model: ManagedObjectModel

    static func isDevice(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: URL(fileURLWithPath: path).appendingPathComponent("device.json").path)
    }

    init(path: String) throws {
        url = URL(fileURLWithPath: path)
        let configurationURL = url.appendingPathComponent("device.json")
        guard let data = FileManager.default.contents(atPath: configurationURL.path) else {
            throw CLIError("\(path) is not a device folder (no device.json); make one with nimbus device init")
        }
        do { configuration = try JSONDecoder().decode(Configuration.self, from: data) } catch {
            throw CLIError("\(configurationURL.path) is not a valid device configuration", underlying: error)
        }
        let modelURL = url.appendingPathComponent("model.json")
        guard let modelData = FileManager.default.contents(atPath: modelURL.path) else {
            throw CLIError("the device folder \(path) has no model.json")
        }
        do { model = try JSONDecoder().decode(ManagedObjectModel.self, from: modelData) } catch {
            throw CLIError("\(modelURL.path) is not a valid model (nimbus device init writes it)", underlying: error)
        }
    }

    /// Throws "needs the user" when the device is signed out: nothing it holds can sync.
    func requireSignedIn(for command: String) throws {
        if syncsThroughFolder { return }
        guard try accounts.currentAccount == nil else { return }
        throw CLIError("\(url.path) is signed out, so \(command) can't reach any account: sign it in with "
            + "nimbus device login \(url.path) --token <token> (edits made while signed out move into the account)", status: .needsUser)
    }

    /// The store descriptions: one per configuration (or one store when the model has none).
    /// Mirrored stores are per account: the container keeps their files under
    /// `<Config>.nimbus/accounts/<user>/` and `<Config>.nimbus/local/`.
    var descriptions: [PersistentStoreDescription] {
        var options = CloudContainerOptions(serverURL: configuration.server, containerIdentifier: configuration.container,
                                            databaseScope: configuration.database, token: "", zoneName: configuration.zone,
                                            allowsInsecureHTTP: configuration.insecureHTTPAllowed)
        if let folder = configuration.folder {
            var folderOptions = FolderSyncOptions(folder: URL(fileURLWithPath: folder))
            folderOptions.encryptionKey = configuration.folderKeyFile.flatMap(Self.folderKey)
            options = CloudContainerOptions(folder: URL(fileURLWithPath: folder), containerIdentifier: configuration.container,
                                            zoneName: configuration.zone, folderOptions: folderOptions)
        }
        let names = model.configurations.keys.sorted()
        var descriptions: [PersistentStoreDescription]
        if names.isEmpty {
            var description = PersistentStoreDescription(url: url.appendingPathComponent("Store.sqlite"))
            description.cloudContainerOptions = options
            descriptions = [description]
        } else {
            descriptions = names.map { name in
                var description = PersistentStoreDescription(url: url.appendingPathComponent("\(name).sqlite"))
                description.configuration = name
                if !configuration.localConfigurations.contains(name) { description.cloudContainerOptions = options }
                return description
            }
        }
        // Every mirrored private store has a shared twin: the zones other users shared with
        // this user (after the private ones, so that new objects go to the private store).
        guard configuration.database == .private, !syncsThroughFolder else { return descriptions }
        for description in descriptions {
            guard var sharedOptions = description.cloudContainerOptions else { continue }
            var shared = description
            sharedOptions.databaseScope = .shared
            shared.cloudContainerOptions = sharedOptions
            shared.url = description.url?.deletingPathExtension().appendingPathExtension("shared.sqlite")
            descriptions.append(shared)
        }
        return descriptions
    }

    /// The store new objects go to for `--scope private|shared` (`nil`: their entity's default).
    static func store(scope: String?, in coordinator: PersistentStoreCoordinator, for entity: EntityDescription) throws -> PersistentStore? {
        guard let scope else { return nil }
        guard let wanted = DatabaseScope(rawValue: scope), wanted != .public else {
            throw CLIError("--scope must be private or shared, not \(scope)")
        }
        guard let store = coordinator.persistentStores.first(where: {
            ($0.storeDescription.cloudContainerOptions?.databaseScope ?? .private) == wanted && $0.holds(entity)
        }) else {
            throw CLIError("no \(scope) store holds \(entity.name) here (--scope needs a device folder)")
        }
        return store
    }

    /// The device's saved credentials (`account.json`).
    var accounts: SavedAccountProvider {
        get throws { try SavedAccountProvider(file: url.appendingPathComponent("account.json")) }
    }

    /// The saved credentials for a sign-in, which replaces a damaged file.
    func accountsForSignIn() throws -> SavedAccountProvider {
        do { return try accounts } catch let error as CloudError where error.code == .invalidConfiguration {
            try FileManager.default.removeItem(at: url.appendingPathComponent("account.json"))
            return try accounts
        }
    }

    /// Opens the device's container on the signed-in account's stores (syncing only when asked).
    func openContainer(accounts: SavedAccountProvider? = nil) throws -> CloudContainer {
        let container = CloudContainer(name: url.lastPathComponent, managedObjectModel: model)
        container.automaticallySyncs = false
        // A folder device has no account: its stores sync through the folder directly.
        if !syncsThroughFolder { container.accountProvider = try accounts ?? self.accounts }
        container.setsUpAccountStoresAsynchronously = false
        container.persistentStoreDescriptions = descriptions
        try container.loadPersistentStores()
        return container
    }

    /// The account a token belongs to, asked of the server; a server that can't be reached
    /// or refuses the token leaves the account unverified (named after the token), so that
    /// a device can be made offline.
    func account(for token: String) async -> CloudAccount {
        if let account = try? await verify(token) {
            return account
        }
        let digest = token.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 }
        return CloudAccount(identifier: "unverified-" + String(digest, radix: 16), token: token)
    }

    /// Asks the device's server who `token` belongs to.
    func verify(_ token: String) async throws -> CloudAccount {
        try await CloudAccount.verify(token: token, server: configuration.server, containerIdentifier: configuration.container,
                                      allowsInsecureHTTP: configuration.insecureHTTPAllowed)
    }

    /// Records in `device.json` that plain http to the server is allowed (`--allow-insecure-http`).
    func allowInsecureHTTP() throws -> DeviceFolder {
        var changed = configuration
        changed.allowsInsecureHTTP = true
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(changed).write(to: url.appendingPathComponent("device.json"), options: .atomic)
        return try DeviceFolder(path: url.path)
    }

    /// A device made while the server could not be reached keeps its edits under an
    /// unverified account (named after its token). Once the server names the token's user,
    /// those edits upload through that replica, and only when nothing is left pending does the
    /// device move to the user's store (its files then go, and the user's store imports from
    /// the server); until then it stays where it was, so nothing is stranded.
    ///
    /// - Returns: The container it opened (on whichever account it ended), for the caller to
    ///   go on with: a second container on the same files in one process would only compete
    ///   with it for the store's locks. `nil` when there was nothing to settle.
    func settleUnverifiedAccount() async throws -> CloudContainer? {
        if syncsThroughFolder { return nil }
        let accounts = try self.accounts
        guard let current = accounts.currentAccount, current.identifier.hasPrefix("unverified-"),
              let verified = try? await verify(current.token)
        else { return nil }
        let container = try openContainer(accounts: accounts)
        try await container.syncNow()
        let pending = try container.syncStatus().reduce(0) { $0 + $1.pendingUploads }
        guard pending == 0 else { return container }
        try accounts.signIn(verified)
        try await container.switchAccount(to: verified)
        return container
    }
}

