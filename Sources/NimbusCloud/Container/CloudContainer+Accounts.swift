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
        updateAccountState { $0.templates = templates }
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
        post(CloudEvent(kind: .setup, phase: .ended, storeIdentifier: "", recordCount: 0, error: cloudError, endDate: Date()))
    }

    /// Swaps the mirrored stores to `account`'s (or to the local stores for `nil`): posts
    /// ``storesWillChangeNotification``, removes the current stores (an account's files go
    /// only when everything in them is on the server), adds the new ones — on the first
    /// sign-in moving what was saved locally into the account — resets `viewContext` and
    /// posts ``storesDidChangeNotification``. Switches run one after another.
    public func switchAccount(to account: CloudAccount?) async throws {
        let task = updateAccountState { state -> Task<Void, any Error> in
            let previous = state.running
            let task = Task<Void, any Error> {
                _ = try? await previous?.value
                try await self.performSwitch(to: account)
            }
            state.running = task
            return task
        }
        try await task.value
    }

    private func performSwitch(to account: CloudAccount?) async throws {
        let current = accountState
        guard current.accountIdentifier != account?.identifier || current.token != account?.token else { return }
        if let account, current.isLoaded, current.accountIdentifier == account.identifier {
            // The same account with a new token (refreshed, or after an expired or revoked
            // one): swapped in place. The stores, their files and their unsent edits stay.
            await updateToken(account.token)
            return
        }
        NotificationCenter.default.post(name: Self.storesWillChangeNotification, object: self,
                                        userInfo: [Self.storesUserInfoKey: current.stores])
        var removable: [URL] = []
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
            // The account's data leaves the device, once everything in it is on the server.
            if store.storeDescription.cloudContainerOptions != nil, pending == 0, let url = store.url {
                removable.append(url)
            }
        }
        let stores: [PersistentStore]
        do {
            let plan = try storePlan(for: account)
            if account != nil { try copyLocalData(plan) }
            // One step on the view context's queue: it sees the old stores or the new ones
            // (reset to forget the old objects), never both, never neither.
            let view = viewContext
            let coordinator = persistentStoreCoordinator
            let old = current.stores
            let descriptions = plan.map(\.account)
            stores = try await view.perform {
                let stores = try coordinator.swapPersistentStores(removing: old, adding: descriptions)
                view.reset()
                return stores
            }
        } catch {
            // The old stores stay; they sync again.
            for store in current.stores { try? mirror(store) }
            throw error
        }
        try finishAdding(stores, for: account)
        for url in removable { AccountStores.removeFiles(of: url) }
        NotificationCenter.default.post(name: Self.storesDidChangeNotification, object: self,
                                        userInfo: [Self.storesUserInfoKey: stores])
    }

    /// Gives every mirrored store a new token of the same account (a refreshed token, or one
    /// that replaces an expired or revoked one): the engines use it from the next request on,
    /// the push socket reconnects with it, and a sync follows when syncing by itself. The
    /// stores, their files and their unsent edits stay as they are.
    ///
    /// For example, after an ``CloudEvent/Kind-swift.enum/account`` event:
    /// ```swift
    /// await container.updateToken(freshToken)
    /// try await container.syncNow()   // what waited for the token goes out
    /// ```
    /// With an ``accountProvider``, signing in the same account with the new token does this.
    /// - Parameter token: The new bearer token; it must belong to the same user (a token of
    ///   another user is an account switch: ``switchAccount(to:)``).
    public func updateToken(_ token: String) async {
        for engine in engines {
            var options = engine.mirror.options
            options.token = token
            await engine.replaceCredentials(options: options, transport: makeTransport(options))
        }
        updateAccountState { if $0.accountIdentifier != nil { $0.token = token } }
    }

    /// Adds the stores of `account` (or the local stores) at load.
    private func addStores(for account: CloudAccount?) throws {
        let plan = try storePlan(for: account)
        if account != nil { try copyLocalData(plan) }
        var stores: [PersistentStore] = []
        for step in plan { stores.append(try persistentStoreCoordinator.addPersistentStore(with: step.account)) }
        try finishAdding(stores, for: account)
    }

    /// Mirrors the stores just added for an account, removes the local originals copied into
    /// them, and records them as the current stores.
    private func finishAdding(_ stores: [PersistentStore], for account: CloudAccount?) throws {
        if account != nil {
            for store in stores { try mirror(store) }
            try removeMovedOriginals(from: try storePlan(for: nil), into: stores)
        }
        updateAccountState { state in
            state.stores = stores
            state.accountIdentifier = account?.identifier
            state.token = account?.token
            state.isLoaded = true
        }
        let log = "Using local storage: \(account == nil ? 1 : 0)"
        if Self.logLevel <= .notice || ProcessInfo.processInfo.environment["NIMBUS_SYNC_LOG"] != nil {
            FileHandle.standardError.write(Data("NimbusCloud: \(log)\n".utf8))
        }
    }

    /// For each template, the local store's description and the one `account` uses (the
    /// local one again for `nil`).
    private func storePlan(for account: CloudAccount?) throws -> [(local: PersistentStoreDescription, account: PersistentStoreDescription)] {
        try accountState.templates.compactMap { template -> (local: PersistentStoreDescription, account: PersistentStoreDescription)? in
            guard let templateURL = template.url else { return nil }
            var local = template
            local.url = AccountStores.url(for: templateURL, account: nil)
            local.cloudContainerOptions = nil
            local.persistentHistoryTracking = true
            guard let account else {
                try FileManager.default.createDirectory(at: local.url!.deletingLastPathComponent(), withIntermediateDirectories: true)
                if isReadOnlyWithoutAccount {
                    if !FileManager.default.fileExists(atPath: local.url!.path) {
                        // Created once, empty, so that it can open read-only.
                        let creator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
                        try creator.removePersistentStore(creator.addPersistentStore(with: local))
                    }
                    var readOnly = local
                    readOnly.isReadOnly = true
                    return (local, readOnly)
                }
                return (local, local)
            }
            var description = template
            description.url = AccountStores.url(for: templateURL, account: account.identifier)
            try FileManager.default.createDirectory(at: description.url!.deletingLastPathComponent(), withIntermediateDirectories: true)
            description.cloudContainerOptions?.token = account.token
            return (local, Self.prepared(description))
        }
    }

    /// Sign-in, step 1: copies into each account store what its local store holds, on a
    /// coordinator of its own, while the app still uses the local store (see
    /// ``LocalDataMover``).
    private func copyLocalData(_ plan: [(local: PersistentStoreDescription, account: PersistentStoreDescription)]) throws {
        for step in plan {
            guard let localURL = step.local.url, FileManager.default.fileExists(atPath: localURL.path) else { continue }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
            let local = try coordinator.addPersistentStore(with: step.local)
            defer { try? coordinator.removePersistentStore(local) }
            let target = try coordinator.addPersistentStore(with: step.account)
            defer { try? coordinator.removePersistentStore(target) }
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            context.transactionAuthor = "NimbusCloud.signIn"
            try context.performAndWait {
                try LocalDataMover(context: context, from: local, to: target).copy()
            }
        }
    }

    /// Sign-in, step 3 (after the swap): deletes from each local store the originals the
    /// copy marked in the account's store, so that they move once.
    private func removeMovedOriginals(from plan: [(local: PersistentStoreDescription, account: PersistentStoreDescription)],
                                      into stores: [PersistentStore]) throws {
        for (step, accountStore) in zip(plan, stores) {
            guard let localURL = step.local.url, FileManager.default.fileExists(atPath: localURL.path) else { continue }
            let coordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
            let local = try coordinator.addPersistentStore(with: step.local)
            defer { try? coordinator.removePersistentStore(local) }
            let marks = try LocalDataMover.marks(in: accountStore, of: local.identifier)
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            context.transactionAuthor = "NimbusCloud.signIn"
            try context.performAndWait {
                try LocalDataMover(context: context, from: local, to: accountStore).removeOriginals(marked: marks)
            }
        }
    }
}
