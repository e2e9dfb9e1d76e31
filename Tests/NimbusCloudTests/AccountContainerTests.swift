import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

@Suite("CloudContainer with an account provider")
struct AccountContainerTests {
    static func container(_ server: SyncServer, folder: TemporaryDirectory, accounts: SavedAccountProvider,
                          asynchronous: Bool, readOnly: Bool = false) throws -> CloudContainer {
        let container = CloudContainer(name: "posts", managedObjectModel: try SyncModel.make())
        container.automaticallySyncs = false
        container.accountProvider = accounts
        container.setsUpAccountStoresAsynchronously = asynchronous
        container.isReadOnlyWithoutAccount = readOnly
        var cloud = PersistentStoreDescription(url: folder.url.appendingPathComponent("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        cloud.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: "app", token: "")
        container.persistentStoreDescriptions = [cloud]
        return container
    }

    @Test("loading returns at once on the local store; the account's store is swapped in with will/did-change notifications")
    func asynchronousSetup() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let accounts = try SavedAccountProvider(file: nil)
        try accounts.signIn(try await CloudAccount.verify(token: server.tokens[0], server: server.url, containerIdentifier: "app"))
        let container = try Self.container(server, folder: folder, accounts: accounts, asynchronous: true)
        let (didChange, continuation) = AsyncStream<[PersistentStore]>.makeStream()
        let didObserver = NotificationCenter.default.addObserver(forName: CloudContainer.storesDidChangeNotification, object: container, queue: nil) { note in
            continuation.yield(note.userInfo?[CloudContainer.storesUserInfoKey] as? [PersistentStore] ?? [])
        }
        defer { NotificationCenter.default.removeObserver(didObserver) }
        let willChange = Flag()
        let observer = NotificationCenter.default.addObserver(forName: CloudContainer.storesWillChangeNotification, object: container, queue: nil) { _ in
            willChange.set()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try await container.loadPersistentStores()
        #expect(container.loadedAccountIdentifier == nil)   // the local store, usable at once
        var iterator = didChange.makeAsyncIterator()
        let added = await iterator.next() ?? []
        #expect(willChange.isSet)
        let path = added.first?.url?.path ?? ""
        #expect(path.contains("/accounts/alice/"))
        #expect(container.loadedAccountIdentifier == "alice")
        // Signing out through the provider swaps back to the local store.
        try accounts.signOut()
        _ = await iterator.next()
        #expect(container.loadedAccountIdentifier == nil)
    }

    @Test("switches started at once (a provider's change and explicit calls) run one after another")
    func simultaneousSwitches() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let accounts = try SavedAccountProvider(file: nil)
        let alice = try await CloudAccount.verify(token: server.tokens[0], server: server.url, containerIdentifier: "app")
        let container = try Self.container(server, folder: folder, accounts: accounts, asynchronous: false)
        try await container.loadPersistentStores()
        for round in 0..<12 {
            let target: CloudAccount? = round.isMultiple(of: 2) ? alice : nil
            // What `nimbus device login` does: the provider's change starts one switch, the
            // command another; here with more callers at once, from several threads.
            if let target { try accounts.signIn(target) } else { try accounts.signOut() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await container.switchAccount(to: target) } }
                try await group.waitForAll()
            }
            #expect(container.loadedAccountIdentifier == target?.identifier, "round \(round)")
            let paths = container.persistentStoreCoordinator.persistentStores.compactMap { $0.url?.path }
            #expect(paths.count == 1, "round \(round): \(paths)")
            #expect(paths.allSatisfy { $0.contains("/accounts/alice/") == (target != nil) }, "round \(round): \(paths)")
        }
    }

    @Test("without an account the local store can be read-only, with a clear error on save")
    func readOnlyWithoutAccount() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let container = try Self.container(server, folder: folder, accounts: try SavedAccountProvider(file: nil), asynchronous: false, readOnly: true)
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let error = await #expect(throws: NimbusError.self) {
            try await context.perform {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue("no account", forKey: "title")
                try context.save()
            }
        }
        #expect(error?.code == .readOnlyStore)
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
