import Foundation
import Nimbus

extension CloudContainer {
    /// Posted (object: the container) before the stores of an account are removed:
    /// `userInfo[CloudContainer.storesUserInfoKey]` holds them. Save or reset contexts in the
    /// observer; edits saved there are kept with that account and uploaded when it returns.
    public static let storesWillChangeNotification = Notification.Name("NimbusCloudStoresWillChange")
    /// Posted (object: the container) after the new account's stores (or the local stores)
    /// are added: `userInfo[CloudContainer.storesUserInfoKey]` holds them.
    public static let storesDidChangeNotification = Notification.Name("NimbusCloudStoresDidChange")
    /// The `userInfo` key of the stores in the store-change notifications.
    public static let storesUserInfoKey = "stores"

    /// The account whose stores are loaded now (`nil`: the local stores).
    public var loadedAccountIdentifier: String? { accountState.accountIdentifier }

    func loadAccountStores(_ templates: [PersistentStoreDescription]) throws {
        guard let provider = accountProvider else { return }
        for template in templates where template.url == nil {
            throw CloudError(.invalidConfiguration, "a mirrored store with an account provider needs a store URL")
        }
        var state = accountState
        state.templates = templates
        accountState = state
        let account = provider.currentAccount
        if account != nil && setsUpAccountStoresAsynchronously {
            // Usable at once on the local store; the account's store follows (seed 000).
            try addStores(for: nil)
            Task { [weak self] in
                do { try await self?.switchAccount(to: account) } catch { self?.reportAccountError(error) }
            }
        } else {
            try addStores(for: account)
        }
        let changes = provider.accountChanges()
        Task { [weak self] in
            for await account in changes {
                do { try await self?.switchAccount(to: account) } catch { self?.reportAccountError(error) }
            }
        }
    }

    private func reportAccountError(_ error: any Error) {
        let cloudError = error as? CloudError ?? CloudError(.server, "switching accounts failed: \(error)")
        post(CloudEvent(kind: .setup, phase: .ended, storeIdentifier: "", recordCount: 0, error: cloudError))
    }

    /// Swaps the mirrored stores to `account`'s (or to the local stores for `nil`): posts
    /// ``storesWillChangeNotification``, removes the current stores (an account's files go
    /// only when everything in them is on the server), adds the new ones — on the first
    /// sign-in moving what was saved locally into the account — resets `viewContext` and
    /// posts ``storesDidChangeNotification``. Switches run one after another.
    public func switchAccount(to account: CloudAccount?) async throws {
        let task = state(update: { state -> Task<Void, any Error> in
            let previous = state.running
            let task = Task<Void, any Error> {
                _ = try? await previous?.value
                try await self.performSwitch(to: account)
            }
            state.running = task
            return task
        })
        try await task.value
    }

    private func state<T>(update: (inout AccountState) -> T) -> T {
        var state = accountState
        let result = update(&state)
        accountState = state
        return result
    }

    private func performSwitch(to account: CloudAccount?) async throws {
        let current = accountState
        guard current.accountIdentifier != account?.identifier || current.token != account?.token else { return }
        NotificationCenter.default.post(name: Self.storesWillChangeNotification, object: self,
                                        userInfo: [Self.storesUserInfoKey: current.stores])
        for store in current.stores {
            let mirror = engines.first(where: { $0.mirror.store === store })?.mirror
            // A sync in flight (an export or import) ends before its store goes.
            await removeEngine(for: store)
            var pending = 0
            if let mirror {
                pending = try store.writeTransaction { db in
                    try mirror.capture.capture(db)
                    return try SyncMetadata.pendingCount(db)
                }
            }
            try persistentStoreCoordinator.removePersistentStore(store)
            // The account's data leaves the device, once everything in it is on the server.
            if store.storeDescription.cloudContainerOptions != nil, pending == 0, let url = store.url {
                AccountStores.removeFiles(of: url)
            }
        }
        try addStores(for: account)
        let view = viewContext
        try await view.perform { view.reset() }
        NotificationCenter.default.post(name: Self.storesDidChangeNotification, object: self,
                                        userInfo: [Self.storesUserInfoKey: accountState.stores])
    }

    /// Adds the stores of `account` (or the local stores).
    private func addStores(for account: CloudAccount?) throws {
        var stores: [PersistentStore] = []
        for template in accountState.templates {
            guard let templateURL = template.url else { continue }
            let url = AccountStores.url(for: templateURL, account: account?.identifier)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var description = template
            description.url = url
            if let account {
                description.cloudContainerOptions?.token = account.token
            } else {
                description.cloudContainerOptions = nil
                description.persistentHistoryTracking = true
                if isReadOnlyWithoutAccount {
                    if !FileManager.default.fileExists(atPath: url.path) {
                        try persistentStoreCoordinator.removePersistentStore(persistentStoreCoordinator.addPersistentStore(with: description))
                    }
                    description.isReadOnly = true
                }
            }
            let store = try persistentStoreCoordinator.addPersistentStore(with: Self.prepared(description))
            if account != nil {
                try mirror(store)
                try moveLocalData(of: template, into: store)
            }
            stores.append(store)
        }
        var state = accountState
        state.stores = stores
        state.accountIdentifier = account?.identifier
        state.token = account?.token
        state.isLoaded = true
        accountState = state
        let log = "Using local storage: \(account == nil ? 1 : 0)"
        if Self.logLevel <= .notice || ProcessInfo.processInfo.environment["NIMBUS_SYNC_LOG"] != nil {
            FileHandle.standardError.write(Data("NimbusCloud: \(log)\n".utf8))
        }
    }

    /// On sign-in, what was saved without an account moves into the account's store (and
    /// leaves the local store, so that it moves once). Objects of entities with a uniqueness
    /// constraint join the account's object with the same key instead of duplicating it.
    private func moveLocalData(of template: PersistentStoreDescription, into accountStore: PersistentStore) throws {
        guard let templateURL = template.url else { return }
        let localURL = AccountStores.url(for: templateURL, account: nil)
        guard FileManager.default.fileExists(atPath: localURL.path) else { return }
        var description = template
        description.url = localURL
        description.cloudContainerOptions = nil
        description.persistentHistoryTracking = true
        description.isReadOnly = false
        let localStore = try persistentStoreCoordinator.addPersistentStore(with: description)
        defer { try? persistentStoreCoordinator.removePersistentStore(localStore) }
        let context = newBackgroundContext()
        context.transactionAuthor = "NimbusCloud.signIn"
        try context.performAndWait {
            try LocalDataMover(context: context, from: localStore, to: accountStore).move()
        }
    }
}
