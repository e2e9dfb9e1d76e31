import ArgumentParser
import Foundation
import Nimbus
import NimbusCloud
import NimbusWire

/// `nimbus device …`: devices that sync a store through a server, for scripts and tests.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Make and sync devices: folders holding a mirrored store, its model and its sync metadata.",
        subcommands: [Init.self, Sync.self, Status.self, Login.self, Logout.self, Switch.self, Rebuild.self, Erase.self,
                      Share.self, Shares.self, Accept.self, Participants.self, Unshare.self, Leave.self])
}

extension DeviceCommand {
    /// `nimbus device init <dir> --server URL --token T --model M [--container ID]`.
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a device folder: its store files, configuration and sync metadata.",
            discussion: "Example: nimbus device init ./phone --server http://127.0.0.1:8080 --token nmb_… --model Posts.xcdatamodeld")

        @Argument(help: "The device folder to create.") var directory: String
        @Option(help: "The sync server's URL.") var server: String?
        @Option(help: "A shared folder to sync through instead of a server (Syncthing, Dropbox, a NAS…).") var folder: String?
        @Option(help: "With --folder: a file holding the key that encrypts the folder's files (32 bytes, or 64 hex digits), the same on every device.")
        var folderKeyFile: String?
        @Option(help: "The device's token (nimbus tokens create prints one).") var token: String?
        @Option(help: "The model: .xcdatamodeld, .xcdatamodel or .json.") var model: String
        @Option(help: "The container identifier.") var container: String = "nimbus"
        @Option(help: "The database: private, shared or public.") var database: String = "private"
        @Option(name: .customLong("local"), help: "A configuration whose store stays on the device (repeatable; default: Local).")
        var localConfigurations: [String] = []
        @Flag(help: "Allow plain http:// to a server other than this machine (the token travels unencrypted).")
        var allowInsecureHTTP = false
        @Flag(help: "Print the device's status as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                if let folder {
                    guard server == nil, token == nil else { throw CLIError("--folder syncs without a server: leave out --server and --token") }
                    return try await initFolderDevice(folder)
                }
                guard let server, let token else { throw CLIError("give --server and --token, or --folder for a device that syncs through a shared folder") }
                guard let serverURL = URL(string: server), serverURL.scheme == "http" || serverURL.scheme == "https" else {
                    throw CLIError("--server must be an http:// or https:// URL, not \(server)")
                }
                // Refused before anything is made.
                try CloudContainerOptions.checkTransportSecurity(of: serverURL, allowsInsecureHTTP: allowInsecureHTTP)
                guard let scope = DatabaseScope(rawValue: database) else { throw CLIError("--database must be private, shared or public") }
                let folder = URL(fileURLWithPath: directory)
                if FileManager.default.fileExists(atPath: folder.appendingPathComponent("device.json").path) {
                    throw CLIError("\(directory) is already a device folder")
                }
                let managedObjectModel = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: model))
                let locals = localConfigurations.isEmpty ? managedObjectModel.configurations.keys.filter { $0.lowercased() == "local" } : localConfigurations
                // A failure from here on leaves nothing behind, so the same command can be run again.
                let cleanup = DeviceFolder.Leftovers(folder: folder)
                let status: [StoreSyncStatus]
                let device: DeviceFolder
                do {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    // The folder holds the device's token (account.json): its owner's only.
                    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    try encoder.encode(managedObjectModel).write(to: folder.appendingPathComponent("model.json"))
                    let configuration = DeviceFolder.Configuration(server: serverURL, container: container, database: scope,
                                                                   localConfigurations: Array(locals).sorted(),
                                                                   allowsInsecureHTTP: allowInsecureHTTP ? true : nil)
                    try encoder.encode(configuration).write(to: folder.appendingPathComponent("device.json"))
                    device = try DeviceFolder(path: directory)
                    try device.accounts.signIn(await device.account(for: token))
                    let cloud = try device.openContainer()
                    status = try cloud.syncStatus()
                } catch {
                    cleanup.remove()
                    throw error
                }
                if json { print(try StatusJSON.encode(status)) } else {
                    print("device \(directory): \(status.count) mirrored store(s), \(device.descriptions.count - status.count) local")
                }
            }
        }
    }

    /// `nimbus device sync <dir> [--json]`.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export and import until nothing is pending; exit 0 when in step with the server.",
            discussion: "A signed-out device exits 77 (needs the user); a network failure 75 (retry later). See nimbus help exit-codes.")

        @Argument(help: "The device folder.") var directory: String
        @Flag(help: "Print the result as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device sync")
                let cloud = try await device.settleUnverifiedAccount() ?? device.openContainer()
                let summary = try await cloud.syncNow()
                let pending = try cloud.syncStatus().reduce(0) { $0 + $1.pendingUploads }
                guard pending == 0 else { throw CloudError(.server, "\(pending) change(s) are still pending after the sync") }
                if json {
                    print(try StatusJSON.serialize(["exported": summary.exported, "imported": summary.imported,
                                                    "deleted": summary.deleted, "conflicts": summary.conflicts, "pending": pending]))
                } else {
                    print("in step: exported \(summary.exported), imported \(summary.imported), deleted \(summary.deleted), conflicts \(summary.conflicts)")
                }
            }
        }
    }

    /// `nimbus device status <dir> [--json]`.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pending uploads, tokens, last sync and last error of a device.")

        @Argument(help: "The device folder.") var directory: String
        @Flag(help: "Print the status as JSON.") var json = false

        func run() async throws {
            try reportingErrors {
                let status = try DeviceFolder(path: directory).openContainer().syncStatus()
                if json { print(try StatusJSON.encode(status)); return }
                for store in status {
                    print("\(store.storePath ?? store.storeIdentifier): pending \(store.pendingUploads), parked \(store.parkedRecords), "
                        + "token \(store.zoneToken ?? "none"), last sync \(store.lastSync.map(DateText.string(from:)) ?? "never")"
                        + (store.lastError.map { ", last error: \($0)" } ?? ""))
                }
            }
        }
    }
}

enum StatusJSON {
    static func encode<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(DateText.string(from: date))
        }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func serialize(_ value: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self)
    }
}

extension DeviceCommand {
    /// `nimbus device rebuild <dir>`.
    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Empty the device's mirrored stores and import them again from the server.")

        @Argument(help: "The device folder.") var directory: String
        @Flag(help: "Rebuild even if changes made here are not on the server yet (they are lost).") var discardPending = false
        @Flag(help: "Print the result as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device rebuild")
                let cloud = try device.openContainer()
                let events = cloud.events
                let printer = Task {
                    for await event in events where event.kind == .import && event.phase == .progress && !json {
                        print("imported \(event.recordCount)")
                    }
                }
                let summary = try await cloud.rebuildFromCloud(discardingPendingChanges: discardPending)
                printer.cancel()
                if json { print(try StatusJSON.serialize(["imported": summary.imported])) } else { print("rebuilt: imported \(summary.imported)") }
            }
        }
    }

    /// `nimbus device erase <dir>`.
    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase all cloud content of the device's mirrored stores: the server deletes the zone, every device removes its replica.")

        @Argument(help: "The device folder.") var directory: String

        func run() async throws {
            try await reportingErrors {
                let device = try DeviceFolder(path: directory)
                try device.requireSignedIn(for: "device erase")
                let cloud = try device.openContainer()
                try await cloud.eraseCloudContent()
                print("erased: the server's zone is empty; other devices remove their replicas at their next sync")
            }
        }
    }
}

extension DeviceCommand {
    /// `nimbus device login <dir> --token T`.
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign the device in: the account's stores replace the local ones, and what was saved while signed out moves into the account.",
            discussion: """
                Every sign-in moves what the device saved while signed out into the account (not only the \
                first), then removes it from local storage; the next device sync uploads it. A new token of \
                the signed-in user replaces the old one in place. A refused token exits 77 (needs the user).
                """)

        @Argument(help: "The device folder.") var directory: String
        @Option(help: "The device's token for the account (a new token of the signed-in user replaces the old one in place).")
        var token: String
        @Flag(help: "Allow plain http:// to a server other than this machine (recorded in device.json).")
        var allowInsecureHTTP = false

        func run() async throws {
            try await reportingErrors {
                try await DeviceCommand.signIn(directory, token: token, verb: "signed in", allowInsecureHTTP: allowInsecureHTTP)
            }
        }
    }

    /// `nimbus device switch <dir> --token T`.
    struct Switch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Switch the device to another account (the previous account's unsent edits stay for its return).")

        @Argument(help: "The device folder.") var directory: String
        @Option(help: "The device's token for the other account.") var token: String
        @Flag(help: "Allow plain http:// to a server other than this machine (recorded in device.json).")
        var allowInsecureHTTP = false

        func run() async throws {
            try await reportingErrors {
                try await DeviceCommand.signIn(directory, token: token, verb: "switched", allowInsecureHTTP: allowInsecureHTTP)
            }
        }
    }

    /// `nimbus device logout <dir>`.
    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign the device out: the account's data leaves it (kept until uploaded), the local stores return.")

        @Argument(help: "The device folder.") var directory: String

        func run() async throws {
            try await reportingErrors {
                let device = try DeviceFolder(path: directory)
                let accounts = try device.accounts
                let container = try device.openContainer(accounts: accounts)
                let previous = container.loadedAccountIdentifier
                try accounts.signOut()
                try await container.switchAccount(to: nil)
                print("signed out" + (previous.map { " of \($0)" } ?? "") + "; using local storage")
            }
        }
    }

    /// Signs the device in with `token`: another user's token switches accounts; a new token
    /// of the signed-in user replaces the old one in place (the stores, their files and their
    /// unsent edits stay; the next sync sends them with the new token).
    static func signIn(_ directory: String, token: String, verb: String, allowInsecureHTTP: Bool = false) async throws {
        var device = try DeviceFolder(path: directory)
        if !allowInsecureHTTP {
            try CloudContainerOptions.checkTransportSecurity(of: device.configuration.server,
                                                             allowsInsecureHTTP: device.configuration.insecureHTTPAllowed)
        }
        // Edits made offline under the current token go first (best effort: the sign-in
        // itself must not fail because the previous account could not sync).
        let settled = allowInsecureHTTP && !device.configuration.insecureHTTPAllowed ? nil : try? await device.settleUnverifiedAccount()
        let account = try await CloudAccount.verify(token: token, server: device.configuration.server,
                                                    containerIdentifier: device.configuration.container,
                                                    allowsInsecureHTTP: allowInsecureHTTP || device.configuration.insecureHTTPAllowed)
        if allowInsecureHTTP, !device.configuration.insecureHTTPAllowed { device = try device.allowInsecureHTTP() }
        let accounts = try device.accountsForSignIn()
        let container = try settled ?? device.openContainer(accounts: accounts)
        let previous = container.loadedAccountIdentifier
        try accounts.signIn(account)
        try await container.switchAccount(to: account)
        print(previous == account.identifier ? "token replaced: \(account.identifier)" : "\(verb): \(account.identifier)")
        // The account's data comes down (and what moved in goes up) now, not at the next
        // `device sync`: a sign-in that shows an empty store looks like lost data. The sign-in
        // stands when this sync fails; its error (and exit code) says to run `device sync`.
        do {
            let summary = try await container.syncNow()
            print("synced: \(summary.exported) exported, \(summary.imported) imported")
        } catch {
            let status = ExitStatus.report(for: error)?.status ?? .internalError
            throw CLIError("\(verb), but the first sync failed; run nimbus device sync \(directory) to retry", status: status, underlying: error)
        }
    }
}
