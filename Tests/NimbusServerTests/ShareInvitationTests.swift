import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// Share invitations (server-0025): URLs, participant states, the permission matrix, public
/// permission, no user enumeration, listings. Every test runs on each available backend.
@Suite("Sharing: invitations and the permission matrix", .stopsServers)
struct ShareInvitationTests {
    static let trip = ZoneID(zoneName: "trip", ownerName: "alice")

    /// What one user reaches of alice's zone "trip".
    struct Reach: Equatable, CustomStringConvertible {
        var read: Int
        var write: Int
        var metadata: Int
        var state: ParticipantState?

        var description: String { "read \(read), write \(write), metadata \(metadata), state \(state?.rawValue ?? "nil")" }
    }

    static func reach(_ client: TestClient, url: String) async throws -> Reach {
        let trip = client.shared(owner: "alice")
        let read = try await trip.changes("trip").status
        let write = try await trip.modify("trip", ModifyRecordsRequest(saves: [Make.record("probe-\(UUID().uuidString)", ["by": .string("probe")])])).status
        let metadata = try await client.shareMetadata(url)
        let state = metadata.status == 200 ? try metadata.decode(ShareMetadata.self).state : nil
        return Reach(read: read, write: write, metadata: metadata.status, state: state)
    }

    static func guessedURL() -> String {
        "/v1/shares/" + ShareSecrets.newSecret()
    }

    @Test("the permission matrix: owner, invited, accepted read-write and read-only, removed, left, back again, strangers",
          arguments: Backend.available)
    func permissionMatrix(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend) { $0.rateLimitBurst = 10_000 }
        let alice = try await server.user("alice")
        var users: [String: TestClient] = [:]
        for name in ["bob", "carol", "dave", "erin", "frank", "gina", "mallory"] { users[name] = try await server.user(name) }
        let user = { (name: String) in users[name]! }
        try await alice.createZone("trip")
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon")])])
        let share = try await alice.shareOK(
            "trip", ["bob": .readWrite, "carol": .readWrite, "dave": .readOnly, "erin": .readWrite, "frank": .readOnly, "gina": .readWrite])
        let url = try #require(share.url)
        for name in ["carol", "dave", "erin", "frank", "gina"] { try await user(name).acceptOK(url) }
        // erin is taken off; frank and gina leave; gina comes back with the URL.
        try await alice.shareOK("trip", ["bob": .readWrite, "carol": .readWrite, "dave": .readOnly, "frank": .readOnly, "gina": .readWrite])
        for name in ["frank", "gina"] {
            let trip = user(name).shared(owner: "alice")
            #expect(try await trip.send(.DELETE, trip.zonePath("trip") + "/share").status == 204)
        }
        #expect(try await user("gina").acceptOK(url).state == .accepted)

        let expected: [(String, Reach)] = [
            ("bob", Reach(read: 404, write: 404, metadata: 200, state: .invited)),
            ("carol", Reach(read: 200, write: 200, metadata: 200, state: .accepted)),
            ("dave", Reach(read: 200, write: 403, metadata: 200, state: .accepted)),
            ("erin", Reach(read: 404, write: 404, metadata: 404, state: nil)),
            ("frank", Reach(read: 404, write: 404, metadata: 200, state: .left)),
            ("gina", Reach(read: 200, write: 200, metadata: 200, state: .accepted)),
            ("mallory", Reach(read: 404, write: 404, metadata: 404, state: nil)),
        ]
        for (name, reach) in expected {
            #expect(try await Self.reach(user(name), url: url) == reach, "\(name)")
        }
        // The owner's view: every participant's state.
        let owner = try await alice.getShare("trip").decode(ZoneShare.self)
        #expect(owner.participants.map { "\($0.userName):\($0.state?.rawValue ?? "-")" } == [
            "bob:invited", "carol:accepted", "dave:accepted", "erin:removed", "frank:left", "gina:accepted",
        ])
        #expect(owner.url == url)

        // Every refusal of a URL is the same answer: the owner, erin, mallory with the real URL,
        // a guessed URL, a malformed one.
        let refusals = [
            try await alice.shareMetadata(url), try await alice.accept(url),
            try await user("erin").shareMetadata(url), try await user("erin").accept(url),
            try await user("mallory").shareMetadata(url), try await user("mallory").accept(url),
            try await user("mallory").shareMetadata(Self.guessedURL()), try await user("mallory").accept(Self.guessedURL()),
            try await user("carol").shareMetadata("/v1/shares/not-a-secret"), try await user("carol").accept("/v1/shares/x"),
        ]
        for reply in refusals {
            #expect(reply.status == 404, "\(reply.text)")
            #expect(reply.error?.code == .unknownItem)
            #expect(reply.error?.message == refusals[0].error?.message)
        }
        #expect(try await Self.reach(user("erin"), url: url) == expected[3].1)
        #expect(try await Self.reach(user("mallory"), url: url) == expected[6].1)
        // frank left: accepting again brings him back with his permission.
        #expect(try await user("frank").acceptOK(url) == ShareMetadata(
            shareID: try #require(share.shareID), containerIdentifier: "app", zoneID: Self.trip, permission: .readOnly, state: .accepted))
        #expect(try await Self.reach(user("frank"), url: url) == Reach(read: 200, write: 403, metadata: 200, state: .accepted))
        // bob accepts: read-write at once.
        try await user("bob").acceptOK(url)
        #expect(try await Self.reach(user("bob"), url: url) == Reach(read: 200, write: 200, metadata: 200, state: .accepted))
        // A permission change applies at once to an accepted participant.
        try await alice.shareOK("trip", ["bob": .readOnly, "carol": .readWrite, "dave": .readOnly, "frank": .readOnly, "gina": .readWrite])
        #expect(try await Self.reach(user("bob"), url: url) == Reach(read: 200, write: 403, metadata: 200, state: .accepted))

        // The owner ends the share: the URL leads nowhere, for everyone.
        #expect(try await alice.send(.DELETE, alice.zonePath("trip") + "/share").status == 204)
        for name in ["bob", "carol", "frank"] {
            #expect(try await Self.reach(user(name), url: url) == Reach(read: 404, write: 404, metadata: 404, state: nil), "\(name)")
            #expect(try await user(name).accept(url).error?.code == .unknownItem)
        }
        // Sharing again makes a new share, a new URL, and everyone invited again.
        let again = try await alice.shareOK("trip", ["carol": .readWrite])
        #expect(again.url != url && again.shareID != share.shareID)
        #expect(again.participants.map(\.state) == [.invited])
        #expect(try await user("carol").shareMetadata(url).status == 404)
        #expect(try await Self.reach(user("carol"), url: try #require(again.url)) == Reach(read: 404, write: 404, metadata: 200, state: .invited))
    }

    @Test("anyone with the link joins under the public permission; lowering it to none removes them", arguments: Backend.available)
    func publicPermission(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let mallory = try await server.user("mallory")
        let oscar = try await server.user("oscar")
        try await alice.createZone("trip")
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon")])])
        let created = try await alice.share("trip", [:], public: .readOnly)
        #expect(created.status == 201)
        let share = try created.decode(ZoneShare.self)
        #expect(share.publicPermission == .readOnly)
        let url = try #require(share.url)
        let shareID = try #require(share.shareID)

        let offered = try await mallory.shareMetadata(url).decode(ShareMetadata.self)
        #expect(offered == ShareMetadata(shareID: shareID, containerIdentifier: "app", zoneID: Self.trip, permission: .readOnly, state: nil))
        #expect(try await Self.reach(mallory, url: url) == Reach(read: 404, write: 404, metadata: 200, state: nil))
        let token = try await mallory.shared().databaseChanges().changeToken
        #expect(try await mallory.acceptOK(url).state == .accepted)
        #expect(try await Self.reach(mallory, url: url) == Reach(read: 200, write: 403, metadata: 200, state: .accepted))
        #expect(try await alice.getShare("trip").decode(ZoneShare.self).participants == [
            ShareParticipant(userName: "mallory", permission: .readOnly, state: .accepted, isPublic: true),
        ])
        // The public permission rises: public participants follow.
        #expect(try await alice.share("trip", [:], public: .readWrite).status == 200)
        #expect(try await Self.reach(mallory, url: url) == Reach(read: 200, write: 200, metadata: 200, state: .accepted))
        #expect(try await oscar.acceptOK(url).permission == .readWrite)
        // Naming a public participant makes them an ordinary one.
        let named = try await alice.share("trip", ["oscar": .readOnly], public: .readWrite).decode(ZoneShare.self)
        #expect(named.participants.first { $0.userName == "oscar" } == ShareParticipant(userName: "oscar", permission: .readOnly, state: .accepted, isPublic: false))

        // Down to none: public participants are removed and hear of it; the URL admits no stranger.
        let pushURL = "ws://127.0.0.1:\(server.port)/v1/containers/app/databases/shared/push"
        let malloryPush = PushListener.connect(url: pushURL, token: mallory.token!)
        defer { malloryPush.close() }
        #expect(await malloryPush.next(within: .seconds(10))?.kind == .hello)
        let lowered = try await alice.share("trip", ["oscar": .readOnly], public: .none).decode(ZoneShare.self)
        #expect(lowered.participants == [
            ShareParticipant(userName: "mallory", permission: .readWrite, state: .removed, isPublic: true),
            ShareParticipant(userName: "oscar", permission: .readOnly, state: .accepted, isPublic: false),
        ])
        let heard = try #require(await malloryPush.next(within: .seconds(10)))
        #expect(heard.kind == .zoneDeleted && heard.zoneID == Self.trip)
        #expect(try await mallory.shared().databaseChanges(since: token).deletedZones == [Self.trip])
        #expect(try await Self.reach(mallory, url: url) == Reach(read: 404, write: 404, metadata: 404, state: nil))
        #expect(try await mallory.accept(url).error?.code == .unknownItem)
        #expect(try await bob.accept(url).error?.code == .unknownItem)
        #expect(try await Self.reach(oscar, url: url) == Reach(read: 200, write: 403, metadata: 200, state: .accepted))
    }

    @Test("saving a share answers the same for known and unknown user names; a user created later accepts",
          arguments: Backend.available)
    func noEnumeration(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        _ = try await server.user("bob")
        try await alice.createZone("known")
        try await alice.createZone("unknown")
        let known = try await alice.share("known", ["bob": .readWrite])
        let unknown = try await alice.share("unknown", ["ghost": .readWrite])
        #expect(known.status == 201 && unknown.status == 201, "\(unknown.text)")
        let knownShare = try known.decode(ZoneShare.self)
        let unknownShare = try unknown.decode(ZoneShare.self)
        #expect(knownShare.participants.map { ShareParticipant(userName: "?", permission: $0.permission, state: $0.state, isPublic: $0.isPublic) }
            == unknownShare.participants.map { ShareParticipant(userName: "?", permission: $0.permission, state: $0.state, isPublic: $0.isPublic) })
        #expect(unknownShare.participants == [ShareParticipant(userName: "ghost", permission: .readWrite, state: .invited, isPublic: false)])
        // Saved again, and read back: the same for both.
        #expect(try await alice.share("unknown", ["ghost": .readWrite]).status == 200)
        #expect(try await alice.getShare("unknown").decode(ZoneShare.self) == unknownShare)
        // Refusals do not depend on the name existing either.
        let badKnown = try await alice.share("known", ["bob": .none])
        let badUnknown = try await alice.share("unknown", ["ghost": .none])
        #expect(badKnown.status == 400 && badUnknown.status == 400)
        #expect(badKnown.error?.message.replacingOccurrences(of: "bob", with: "?") == badUnknown.error?.message.replacingOccurrences(of: "ghost", with: "?"))

        // ghost signs up later: the invitation waits under the name.
        let ghost = try await server.user("ghost")
        let waiting = try await ghost.shareList()
        #expect(waiting.participating.map(\.zoneID) == [ZoneID(zoneName: "unknown", ownerName: "alice")])
        #expect(waiting.participating.first?.url == nil)
        let url = try #require(unknownShare.url)
        #expect(try await ghost.shareMetadata(url).decode(ShareMetadata.self).state == .invited)
        #expect(try await ghost.acceptOK(url).permission == .readWrite)
        try await ghost.shared(owner: "alice").save("unknown", [Make.record("hello", ["from": .string("ghost")])])
        #expect(try await alice.lookup("unknown", ["hello"]).results[0].record != nil)
        #expect(try await alice.getShare("unknown").decode(ZoneShare.self).participants == [
            ShareParticipant(userName: "ghost", permission: .readWrite, state: .accepted, isPublic: false),
        ])
        // Left out later, ghost is removed like anyone.
        try await alice.shareOK("unknown", [:])
        #expect(try await ghost.shared(owner: "alice").changes("unknown").error?.code == .zoneNotFound)
        #expect(try await ghost.accept(url).error?.code == .unknownItem)
    }

    @Test("accepting is idempotent: a second accept changes nothing and pushes nothing", arguments: Backend.available)
    func acceptIdempotent(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        try await alice.createZone("trip")
        let share = try await alice.shareOK("trip", ["bob": .readOnly])
        let bobPush = PushListener.connect(url: "ws://127.0.0.1:\(server.port)/v1/containers/app/databases/shared/push", token: bob.token!)
        defer { bobPush.close() }
        #expect(await bobPush.next(within: .seconds(10))?.kind == .hello)
        let before = try await bob.shared().databaseChanges().changeToken
        let first = try await bob.acceptOK(share.url)
        let heard = try #require(await bobPush.next(within: .seconds(10)))
        #expect(heard.kind == .zoneChanged && heard.zoneID == Self.trip && heard.database == .shared)
        let afterFirst = try await bob.shared().databaseChanges(since: before)
        #expect(afterFirst.changedZones == [Self.trip])
        let second = try await bob.acceptOK(share.url)
        #expect(second == first)
        #expect(await bobPush.next(within: .milliseconds(300)) == nil)
        let afterSecond = try await bob.shared().databaseChanges(since: afterFirst.changeToken)
        #expect(afterSecond.changedZones.isEmpty && afterSecond.deletedZones.isEmpty)
        #expect(afterSecond.changeToken == afterFirst.changeToken)
        #expect(try await bob.shared().zoneIDs() == [Self.trip])
    }

    @Test("the share listing: owned with URL and states, participating invited or accepted without URL", arguments: Backend.available)
    func listing(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let carol = try await server.user("carol")
        let erin = try await server.user("erin")
        let mallory = try await server.user("mallory")
        try await alice.createZone("trip")
        try await alice.createZone("notes")
        try await alice.createZone("private")
        try await bob.createZone("games")
        let trip = try await alice.shareAccepted("trip", ["bob": .readOnly, "carol": .readWrite, "erin": .readOnly], by: [carol, erin])
        try await alice.shareOK("trip", ["bob": .readOnly, "carol": .readWrite])
        let notes = try await alice.shareOK("notes", ["carol": .readOnly])
        let games = try await bob.shareAccepted("games", ["alice": .readWrite], by: [alice])

        let aliceList = try await alice.shareList()
        #expect(aliceList.owned.map(\.zoneID.zoneName) == ["notes", "trip"])
        #expect(aliceList.owned.map(\.url) == [notes.url, trip.url])
        #expect(aliceList.owned.allSatisfy { $0.url != nil })
        #expect(aliceList.owned.last?.participants.map { "\($0.userName):\($0.state?.rawValue ?? "-")" } == [
            "bob:invited", "carol:accepted", "erin:removed",
        ])
        #expect(aliceList.participating.map(\.zoneID) == [ZoneID(zoneName: "games", ownerName: "bob")])
        #expect(aliceList.participating.allSatisfy { $0.url == nil })
        #expect(aliceList.participating.first?.shareID == games.shareID)

        let bobList = try await bob.shareList()
        #expect(bobList.owned.map(\.zoneID) == [ZoneID(zoneName: "games", ownerName: "bob")])
        #expect(bobList.participating.map(\.zoneID) == [Self.trip])
        let carolList = try await carol.shareList()
        #expect(carolList.owned.isEmpty)
        #expect(carolList.participating.map(\.zoneID.zoneName) == ["notes", "trip"])
        #expect(carolList.participating.allSatisfy { $0.url == nil })
        // A participant sees the others who are invited or accepted, not whom the owner removed.
        #expect(carolList.participating.last?.participants.map(\.userName) == ["bob", "carol"])
        #expect(try await erin.shareList() == ShareListResponse(owned: [], participating: []))
        #expect(try await mallory.shareList() == ShareListResponse(owned: [], participating: []))
        // Another container lists nothing.
        let other = try await alice.plain.send(.GET, "/v1/containers/other/shares").decode(ShareListResponse.self)
        #expect(other == ShareListResponse(owned: [], participating: []))
        // Leaving drops the share from the participant's list.
        let carolTrip = carol.shared(owner: "alice")
        #expect(try await carolTrip.send(.DELETE, carolTrip.zonePath("trip") + "/share").status == 204)
        #expect(try await carol.shareList().participating.map(\.zoneID.zoneName) == ["notes"])
    }
}
