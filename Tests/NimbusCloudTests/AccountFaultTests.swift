import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

@Suite("Accounts under faults", .serialized)
struct AccountFaultTests {
    static func tags(_ container: PersistentContainer) async throws -> [String] {
        let context = container.newBackgroundContext()
        return try await context.perform {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    @Test("signing in with 10,000 local objects of which 30% are in the cloud: nothing lost, no duplicates")
    func signInMerges() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try SyncModel.make()
        let other = try Device(server: server, token: server.tokens[1], model: model)
        try await other.edit { context in
            for index in 0..<3000 {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue("tag \(index)", forKey: "name")
            }
        }
        try await other.container.syncNow()
        let folder = try TemporaryDirectory()
        let accounts = try SavedAccountProvider(file: nil)
        let container = try AccountContainerTests.container(server, folder: folder, accounts: accounts, asynchronous: false)
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try await context.perform {
            for index in 0..<10_000 {
                let tag = try context.insertNewObject(forEntityName: "Tag")
                tag.setValue("tag \(index)", forKey: "name")
            }
            try context.save()
        }
        let account = try await CloudAccount.verify(token: server.tokens[0], server: server.url, containerIdentifier: "app")
        try accounts.signIn(account)
        try await container.switchAccount(to: account)
        try await container.syncNow()
        try await other.container.syncNow()
        let here = try await Self.tags(container)
        let there = try await Self.tags(other.container)
        #expect(here.count == 10_000)
        #expect(Set(here).count == 10_000)
        #expect(there == here)
    }

    @Test("signing out during an export and switching during an import lose nothing")
    func switchDuringSync() async throws {
        let server = try await SyncServer(otherUsers: ["bob"])
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let accounts = try SavedAccountProvider(file: nil)
        let alice = try await CloudAccount.verify(token: server.tokens[0], server: server.url, containerIdentifier: "app")
        let bob = try await CloudAccount.verify(token: try #require(server.otherTokens["bob"]), server: server.url, containerIdentifier: "app")
        try accounts.signIn(alice)
        let container = try AccountContainerTests.container(server, folder: folder, accounts: accounts, asynchronous: false)
        try await container.loadPersistentStores()
        try await MirroringFaultTests.insertPosts(Device.wrapping(container, folder: folder), 3000)
        // Sign out while the export runs.
        let export = Task { try await container.syncNow() }
        try await Task.sleep(for: .milliseconds(150))
        try accounts.signOut()
        try await container.switchAccount(to: nil)
        _ = await export.result
        #expect(container.loadedAccountIdentifier == nil)
        // Alice returns: whatever was not sent goes now.
        try accounts.signIn(alice)
        try await container.switchAccount(to: alice)
        try await container.syncNow()
        let reader = try Device(server: server, token: server.tokens[1], model: try SyncModel.make())
        try await reader.container.syncNow()
        #expect(try await reader.snapshot("Post", key: "title").count == 3000)
        // Switch to Bob while Alice's replica imports again after a rebuild request.
        let rebuild = Task { try await container.rebuildFromCloud() }
        try await Task.sleep(for: .milliseconds(100))
        try accounts.signIn(bob)
        try await container.switchAccount(to: bob)
        _ = await rebuild.result
        #expect(container.loadedAccountIdentifier == "bob")
        try accounts.signIn(alice)
        try await container.switchAccount(to: alice)
        try await container.syncNow()
        let posts = try await Device.wrapping(container, folder: folder).snapshot("Post", key: "title")
        #expect(posts.count == 3000)
    }
}
