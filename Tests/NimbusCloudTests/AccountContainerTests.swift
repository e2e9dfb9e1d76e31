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
