import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

/// While accounts switch, `viewContext` must see one whole set of stores at every moment:
/// never none (between a removal and an addition), never two (the local store and the account
/// store that its data is moving into).
@Suite("Account switches: viewContext sees exactly one set of stores at every moment", .serialized)
struct StoreSwapVisibilityTests {
    /// What `viewContext` saw once: how many stores, and the posts' titles.
    struct Observation: Sendable, CustomStringConvertible {
        var storeCount: Int
        var titles: [String]
        var description: String { "\(storeCount) store(s), \(titles.count) posts: \(Set(titles.map { $0.prefix(1) }).sorted())" }
    }

    /// One look, synchronous on the main actor (the view context's queue).
    @MainActor static func look(_ view: ManagedObjectContext) -> Observation {
        let stores = view.persistentStoreCoordinator.persistentStores.count
        let titles = (try? view.fetch(FetchRequest<ManagedObject>(entityName: "Post")))?.compactMap { $0.value(forKey: "title") as? String }
        return Observation(storeCount: stores, titles: titles ?? ["fetch failed"])
    }

    @Test("sign-in (with local data moving in), a switch, a sign-out and a return, watched from the main actor")
    func oneSetAtEveryMoment() async throws {
        let server = try await SyncServer(otherUsers: ["bob"])
        defer { server.stop() }
        let model = try SyncModel.make()
        // The clouds: Alice has 30 posts, Bob 20.
        for (token, prefix, count) in [(server.tokens[0], "A", 30), (try #require(server.otherTokens["bob"]), "B", 20)] {
            let seeder = try Device(server: server, token: token, model: model)
            try await MirroringFaultTests.insertPosts(seeder, count, prefix: prefix)
            try await seeder.container.syncNow()
        }
        let alice = try await CloudAccount.verify(token: server.tokens[0], server: server.url, containerIdentifier: "app")
        let bob = try await CloudAccount.verify(token: try #require(server.otherTokens["bob"]), server: server.url, containerIdentifier: "app")
        let accounts = try SavedAccountProvider(file: nil)
        let folder = try TemporaryDirectory()
        let container = try AccountContainerTests.container(server, folder: folder, accounts: accounts, asynchronous: false)
        try await container.loadPersistentStores()
        // Ten posts saved without an account; they move into Alice's store at sign-in.
        try await MirroringFaultTests.insertPosts(Device.wrapping(container, folder: folder), 10, prefix: "L")

        let done = Flag()
        let view = container.viewContext
        let watcher = Task { @MainActor () -> [Observation] in
            var seen: [Observation] = []
            while !done.isSet {
                seen.append(Self.look(view))
                await Task.yield()
            }
            return seen
        }
        for account in [alice, bob, nil, alice, bob] {
            try await container.switchAccount(to: account)
            if account != nil { try await container.syncNow() }
        }
        done.set()
        let observations = await watcher.value

        // The sets a moment may show: the local posts; Alice's with the local ones moved in;
        // Bob's; the emptied local store after signing out.
        let local = (0..<10).map { "L \($0)" }
        let aliceAll = (0..<30).map { "A \($0)" } + local
        let bobAll = (0..<20).map { "B \($0)" }
        let allowed: [[String]] = [local.sorted(), aliceAll.sorted(), bobAll.sorted(), []]
        #expect(observations.count > 10, "the main actor looked only \(observations.count) times")
        var kinds = Set<Int>()
        for observation in observations {
            #expect(observation.storeCount == 1, "\(observation)")
            let titles = observation.titles.sorted()
            if let kind = allowed.firstIndex(of: titles) {
                kinds.insert(kind)
            } else {
                Issue.record("viewContext saw a mixed or partial set: \(observation)")
            }
        }
        // Alice's first import may still be running while Bob is switched in; in the end each
        // account was seen whole.
        #expect(kinds.isSuperset(of: [1, 2]), "seen: \(kinds.sorted())")
    }
}
