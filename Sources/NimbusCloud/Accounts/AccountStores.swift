import Foundation
import Nimbus

/// Where a store's files live per account: the app names one store URL
/// (`…/Posts.sqlite`); the container keeps `…/Posts.nimbus/accounts/<account>/Posts.sqlite`
/// for each account and `…/Posts.nimbus/local/Posts.sqlite` for "no account".
enum AccountStores {
    static func folder(for url: URL) -> URL {
        url.deletingPathExtension().appendingPathExtension("nimbus")
    }

    static func url(for url: URL, account: String?) -> URL {
        let base = folder(for: url)
        let folder = account.map { base.appendingPathComponent("accounts").appendingPathComponent(safe($0)) }
            ?? base.appendingPathComponent("local")
        return folder.appendingPathComponent(url.lastPathComponent)
    }

    /// An account identifier as a folder name (no separators, no dot names).
    static func safe(_ identifier: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_@+"))
        let mapped = identifier.unicodeScalars.map { allowed.contains($0) ? String($0) : "%" + String($0.value, radix: 16) }.joined()
        return mapped.isEmpty ? "%" : mapped
    }

    /// Removes a store file and its `-wal`, `-shm` and support files.
    static func removeFiles(of url: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
        // Values stored outside the rows (Core Data's `.<name>_SUPPORT` folder).
        let support = url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT")
        try? FileManager.default.removeItem(at: support)
        // The account's folder goes with its last store.
        let folder = url.deletingLastPathComponent()
        if (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true {
            try? FileManager.default.removeItem(at: folder)
        }
    }
}

/// The account stores a container has now.
struct AccountState: Sendable {
    /// The app's descriptions of the stores that mirror per account.
    var templates: [PersistentStoreDescription] = []
    /// The stores added for the current account (or the local stores).
    var stores: [PersistentStore] = []
    /// The account whose stores are added (`nil`: the local stores).
    var accountIdentifier: String?
    /// Whether any store is added yet.
    var isLoaded = false
    /// The token the account stores use.
    var token: String?
    /// The switch running now; the next waits for it.
    var running: Task<Void, any Error>?
}
