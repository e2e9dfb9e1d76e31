import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// The conformance suite, part 4: the shared database. Every test runs on each available backend.
@Suite("Shared database (conformance)", .stopsServers)
struct ShareConformanceTests {
    static let trip = ZoneID(zoneName: "trip", ownerName: "alice")

    static func pushURL(_ server: TestServer, database: String) -> String {
        "ws://127.0.0.1:\(server.port)/v1/containers/app/databases/\(database)/push"
    }

    @Test("an owner shares a zone; the participant lists it, fetches its changes and looks records up", arguments: Backend.available)
    func participantReads(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        try await alice.createZone("trip")
        let photo = try await alice.send(.PUT, "/v1/containers/app/assets", body: Data("harbour photo".utf8)).decode(AssetUploadResponse.self).asset
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon"), "photo": .asset(photo)])])
        let before = try await bob.shared().databaseChanges()
        #expect(before.changedZones.isEmpty && before.deletedZones.isEmpty)
        #expect(try await bob.send(.GET, "/v1/containers/app/assets/\(photo.checksum)").status == 403)

        let created = try await alice.share("trip", ["bob": .readOnly])
        #expect(created.status == 201)
        let share = try created.decode(ZoneShare.self)
        let shareID = try #require(share.shareID)
        let url = try #require(share.url)
        #expect(url.hasPrefix("/v1/shares/"))
        #expect(share == ZoneShare(
            zoneID: Self.trip, shareID: shareID,
            participants: [ShareParticipant(userName: "bob", permission: .readOnly, state: .invited, isPublic: false)], url: url))
        let again = try await alice.share("trip", ["bob": .readOnly])
        #expect(again.status == 200)
        #expect(try again.decode(ZoneShare.self) == share)
        // Invited: nothing of the zone until bob accepts.
        #expect(try await bob.shared().zoneIDs().isEmpty)
        #expect(try await bob.shared(owner: "alice").changes("trip").error?.code == .zoneNotFound)
        #expect(try await bob.send(.GET, "/v1/containers/app/assets/\(photo.checksum)").status == 403)
        let accepted = try await bob.acceptOK(url)
        #expect(accepted == ShareMetadata(shareID: shareID, containerIdentifier: "app", zoneID: Self.trip, permission: .readOnly, state: .accepted))

        #expect(try await bob.shared().zoneIDs() == [Self.trip])
        let changes = try await bob.shared().databaseChanges(since: before.changeToken)
        #expect(changes.changedZones == [Self.trip])
        #expect(changes.deletedZones.isEmpty)
        let bobTrip = bob.shared(owner: "alice")
        let fetched = try await bobTrip.fetchChanges("trip")
        #expect(fetched.records.map(\.recordName) == ["day1"])
        #expect(fetched.changeToken == (try await alice.fetchChanges("trip")).changeToken)
        #expect(try await bobTrip.lookup("trip", ["day1"]).results[0].record?.fields["title"]?.value == .string("Lisbon"))
        // A participant's view of the share has no URL.
        #expect(try await bobTrip.getShare("trip").decode(ZoneShare.self) == ZoneShare(
            zoneID: Self.trip, shareID: shareID,
            participants: [ShareParticipant(userName: "bob", permission: .readOnly, state: .accepted, isPublic: false)]))
        #expect(try await bob.send(.GET, "/v1/containers/app/assets/\(photo.checksum)").status == 200)
        // The zone is alice's: bob's private database does not hold it, alice's shared database lists nothing.
        #expect(try await bob.changes("trip").error?.code == .zoneNotFound)
        #expect(try await alice.shared().zoneIDs().isEmpty)
        #expect(try await alice.zoneIDs() == [ZoneID(zoneName: "trip")])
    }

    @Test("a readOnly participant's saves and deletions are refused and change nothing", arguments: Backend.available)
    func readOnlyRefused(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        try await alice.createZone("trip")
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon")])])
        try await alice.shareAccepted("trip", ["bob": .readOnly], by: [bob])
        let position = try await alice.fetchChanges("trip").changeToken
        let bobTrip = bob.shared(owner: "alice")
        let attempts = [
            ModifyRecordsRequest(saves: [Make.record("day1", ["title": .string("changed")], time: 99, device: "bob")], savePolicy: .changedKeys),
            ModifyRecordsRequest(saves: [Make.record("day2", ["title": .string("new")], device: "bob")]),
            ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "day1", stamp: Make.stamp(99, "bob"))]),
        ]
        for attempt in attempts {
            let reply = try await bobTrip.modify("trip", attempt)
            #expect(reply.status == 403)
            #expect(reply.error?.code == .permissionFailure)
        }
        let after = try await alice.fetchChanges("trip", since: position)
        #expect(after.records.isEmpty && after.deletions.isEmpty)
        #expect(after.changeToken == position)
        #expect(try await alice.lookup("trip", ["day1"]).results[0].record?.fields["title"]?.value == .string("Lisbon"))
    }

    @Test("a readWrite participant writes under the zone's rules, the owner sees it and pays the bytes", arguments: Backend.available)
    func readWriteWrites(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice", quotaBytes: 4_000)
        let carol = try await server.user("carol", device: "carol-phone")
        try await alice.createZone("trip")
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon")], time: 1, device: "alice")])
        try await alice.shareAccepted("trip", ["carol": .readWrite], by: [carol])
        let carolTrip = carol.shared(owner: "alice")
        let usedBefore = try #require(try await server.storage.user(named: "alice")).usedBytes

        let saved = try await carolTrip.save("trip", [Make.record("day2", ["title": .string("Porto")], device: "carol-phone")])
        let day2 = try #require(try await alice.lookup("trip", ["day2"]).results[0].record)
        #expect(day2.fields["title"]?.value == .string("Porto"))
        #expect(day2.modified?.device == "carol-phone")
        #expect(try await alice.fetchChanges("trip").changeToken == saved.changeToken)
        #expect(try #require(try await server.storage.user(named: "alice")).usedBytes > usedBefore)
        #expect(try #require(try await server.storage.user(named: "carol")).usedBytes == 0)

        // Field-level HLC merge is the zone's: different fields from both sides survive.
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisboa")], time: 5, device: "alice")])
        try await carolTrip.save("trip", [Make.record("day1", ["note": .string("fado")], time: 6, device: "carol-phone")])
        let day1 = try #require(try await carolTrip.lookup("trip", ["day1"]).results[0].record)
        #expect(day1.fields["title"]?.value == .string("Lisboa"))
        #expect(day1.fields["note"]?.value == .string("fado"))
        // Compare-and-swap too: a stale change tag gets serverRecordChanged.
        let stale = try await carolTrip.modify("trip", ModifyRecordsRequest(
            saves: [Make.record("day2", ["title": .string("stale")], device: "carol-phone", changeTag: "0-0")]))
        #expect(stale.status == 207)
        #expect(stale.error?.itemErrors?.first?.code == .serverRecordChanged)

        // Over the owner's quota: refused, nothing written.
        let position = try await alice.fetchChanges("trip").changeToken
        let big = try await carolTrip.modify("trip", ModifyRecordsRequest(
            saves: [Make.record("big", ["blob": .string(String(repeating: "x", count: 6_000))], device: "carol-phone")]))
        #expect(big.status == 507)
        #expect(big.error?.code == .quotaExceeded)
        #expect(try await alice.fetchChanges("trip", since: position).records.isEmpty)
    }

    @Test("a change to a shared zone reaches the owner's devices and every participant's devices", arguments: Backend.available)
    func pushReachesBothSides(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice", device: "phone")
        let laptop = try await server.user("alice", device: "laptop")
        let bob = try await server.user("bob")
        let carol = try await server.user("carol")
        let dave = try await server.user("dave")
        try await alice.createZone("trip")
        let laptopPush = PushListener.connect(url: Self.pushURL(server, database: "private"), token: laptop.token!)
        let bobPush = PushListener.connect(url: Self.pushURL(server, database: "shared"), token: bob.token!)
        let carolPush = PushListener.connect(url: Self.pushURL(server, database: "shared"), token: carol.token!)
        let davePush = PushListener.connect(url: Self.pushURL(server, database: "shared"), token: dave.token!)
        defer { laptopPush.close(); bobPush.close(); carolPush.close(); davePush.close() }
        for listener in [laptopPush, bobPush, carolPush, davePush] {
            #expect(await listener.next(within: .seconds(10))?.kind == .hello)
        }
        // Being invited is nothing yet; accepting is a new zone in the participant's shared database.
        let share = try await alice.shareOK("trip", ["bob": .readOnly, "carol": .readWrite])
        #expect(await bobPush.next(within: .milliseconds(300)) == nil)
        try await bob.acceptOK(share.url)
        try await carol.acceptOK(share.url)
        for listener in [bobPush, carolPush] {
            let added = try #require(await listener.next(within: .seconds(10)))
            #expect(added.kind == .zoneChanged && added.database == .shared && added.zoneID == Self.trip)
        }

        let saved = try await carol.shared(owner: "alice").save("trip", [Make.record("day1", ["title": .string("Lisbon")])])
        let ownerHeard = try #require(await laptopPush.next(within: .seconds(10)))
        #expect(ownerHeard.kind == .zoneChanged && ownerHeard.database == .private)
        #expect(ownerHeard.zoneID == ZoneID(zoneName: "trip"))
        #expect(ownerHeard.zoneChangeToken == saved.changeToken)
        for (listener, client) in [(bobPush, bob), (carolPush, carol)] {
            let heard = try #require(await listener.next(within: .seconds(10)))
            #expect(heard.kind == .zoneChanged && heard.database == .shared && heard.zoneID == Self.trip)
            #expect(heard.zoneChangeToken == saved.changeToken)
            // The message's database token is the participant's current position: nothing newer.
            let caughtUp = try await client.shared().databaseChanges(since: heard.databaseChangeToken)
            #expect(caughtUp.changedZones.isEmpty && caughtUp.deletedZones.isEmpty)
        }
        // An owner's save reaches participants too.
        try await alice.save("trip", [Make.record("day2", ["title": .string("Porto")])])
        #expect(await bobPush.next(within: .seconds(10))?.zoneID == Self.trip)
        #expect(await davePush.next(within: .milliseconds(300)) == nil)
    }

    @Test("removing a participant, deleting the share or the zone ends access and tells the devices", arguments: Backend.available)
    func revocation(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let carol = try await server.user("carol")
        try await alice.createZone("trip")
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon")])])
        try await alice.shareAccepted("trip", ["bob": .readWrite, "carol": .readOnly], by: [bob, carol])
        let bobToken = try await bob.shared().databaseChanges().changeToken
        let bobPush = PushListener.connect(url: Self.pushURL(server, database: "shared"), token: bob.token!)
        let carolPush = PushListener.connect(url: Self.pushURL(server, database: "shared"), token: carol.token!)
        defer { bobPush.close(); carolPush.close() }
        #expect(await bobPush.next(within: .seconds(10))?.kind == .hello)
        #expect(await carolPush.next(within: .seconds(10))?.kind == .hello)

        // Bob is left out of the new list.
        let kept = try await alice.shareOK("trip", ["carol": .readOnly])
        #expect(kept.participants == [
            ShareParticipant(userName: "bob", permission: .readWrite, state: .removed, isPublic: false),
            ShareParticipant(userName: "carol", permission: .readOnly, state: .accepted, isPublic: false),
        ])
        let removed = try #require(await bobPush.next(within: .seconds(10)))
        #expect(removed.kind == .zoneDeleted && removed.zoneID == Self.trip && removed.database == .shared)
        let bobChanges = try await bob.shared().databaseChanges(since: bobToken)
        #expect(bobChanges.deletedZones == [Self.trip])
        #expect(bobChanges.changedZones.isEmpty)
        #expect(try await bob.shared().zoneIDs().isEmpty)
        let bobTrip = bob.shared(owner: "alice")
        #expect(try await bobTrip.changes("trip").error?.code == .zoneNotFound)
        #expect(try await bobTrip.send(.POST, bobTrip.zonePath("trip") + "/records/lookup", json: LookupRecordsRequest(recordNames: ["day1"])).error?.code == .zoneNotFound)
        #expect(try await bobTrip.modify("trip", ModifyRecordsRequest(saves: [Make.record("x", [:])])).error?.code == .zoneNotFound)
        #expect(try await bobTrip.getShare("trip").error?.code == .zoneNotFound)
        #expect(try await carol.shared(owner: "alice").lookup("trip", ["day1"]).results[0].record != nil)
        // A device of bob's that was offline hears of it when it resumes from its token.
        let resumed = PushListener.connect(url: Self.pushURL(server, database: "shared") + "?since=\(bobToken.rawValue)", token: bob.token!)
        let missed = try #require(await resumed.next(within: .seconds(10)))
        #expect(missed.kind == .zoneDeleted && missed.zoneID == Self.trip)
        #expect(await resumed.next(within: .seconds(10))?.kind == .hello)
        resumed.close()

        // Deleting the share removes everyone.
        let carolToken = try await carol.shared().databaseChanges().changeToken
        let deleted = try await alice.send(.DELETE, alice.zonePath("trip") + "/share")
        #expect(deleted.status == 204)
        let carolHeard = try #require(await carolPush.next(within: .seconds(10)))
        #expect(carolHeard.kind == .zoneDeleted && carolHeard.zoneID == Self.trip)
        #expect(try await carol.shared().databaseChanges(since: carolToken).deletedZones == [Self.trip])
        #expect(try await carol.shared(owner: "alice").changes("trip").error?.code == .zoneNotFound)
        #expect(try await alice.getShare("trip").error?.code == .unknownItem)
        #expect(try await alice.send(.DELETE, alice.zonePath("trip") + "/share").error?.code == .unknownItem)
        #expect(try await alice.lookup("trip", ["day1"]).results[0].record != nil)

        // Shared again (a new share: a new URL to accept), then the owner deletes the zone.
        let first = try await alice.shareOK("trip", ["carol": .readOnly])
        let second = try await alice.shareOK("trip", ["bob": .readOnly])
        #expect(second.participants == [
            ShareParticipant(userName: "bob", permission: .readOnly, state: .invited, isPublic: false),
            ShareParticipant(userName: "carol", permission: .readOnly, state: .removed, isPublic: false),
        ])
        #expect(second.url == first.url && second.shareID == first.shareID)
        try await bob.acceptOK(second.url)
        #expect(await bobPush.next(within: .seconds(10))?.kind == .zoneChanged)
        let beforeDelete = try await bob.shared().databaseChanges().changeToken
        #expect(try await alice.send(.DELETE, alice.zonePath("trip")).status == 200)
        let gone = try #require(await bobPush.next(within: .seconds(10)))
        #expect(gone.kind == .zoneDeleted && gone.zoneID == Self.trip)
        #expect(try await bob.shared().databaseChanges(since: beforeDelete).deletedZones == [Self.trip])
        #expect(try await bob.shared().zoneIDs().isEmpty)
        // A zone created again under the name is not shared.
        try await alice.createZone("trip")
        #expect(try await alice.getShare("trip").error?.code == .unknownItem)
        #expect(try await bob.shared(owner: "alice").changes("trip").error?.code == .zoneNotFound)
    }

    @Test("a participant leaves a share with DELETE on their shared database", arguments: Backend.available)
    func participantLeaves(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let carol = try await server.user("carol")
        try await alice.createZone("trip")
        try await alice.shareAccepted("trip", ["bob": .readOnly, "carol": .readWrite], by: [bob, carol])
        let token = try await bob.shared().databaseChanges().changeToken
        let bobTrip = bob.shared(owner: "alice")
        #expect(try await bobTrip.send(.DELETE, bobTrip.zonePath("trip") + "/share").status == 204)
        #expect(try await bob.shared().databaseChanges(since: token).deletedZones == [Self.trip])
        #expect(try await bobTrip.send(.DELETE, bobTrip.zonePath("trip") + "/share").error?.code == .zoneNotFound)
        let share = try await alice.getShare("trip").decode(ZoneShare.self)
        #expect(share.participants == [
            ShareParticipant(userName: "bob", permission: .readOnly, state: .left, isPublic: false),
            ShareParticipant(userName: "carol", permission: .readWrite, state: .accepted, isPublic: false),
        ])
        #expect(try await carol.shared().zoneIDs() == [Self.trip])
    }

    @Test("a user the zone is not shared with sees nothing of it", arguments: Backend.available)
    func thirdUserSeesNothing(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let dave = try await server.user("dave")
        try await alice.createZone("trip")
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon")])])
        let bob = try await server.user("bob")
        try await alice.shareAccepted("trip", ["bob": .readWrite], by: [bob])
        #expect(try await dave.shared().zoneIDs().isEmpty)
        let changes = try await dave.shared().databaseChanges()
        #expect(changes.changedZones.isEmpty && changes.deletedZones.isEmpty)
        let daveTrip = dave.shared(owner: "alice")
        let replies = [
            try await daveTrip.changes("trip"),
            try await daveTrip.send(.POST, daveTrip.zonePath("trip") + "/records/lookup", json: LookupRecordsRequest(recordNames: ["day1"])),
            try await daveTrip.modify("trip", ModifyRecordsRequest(saves: [Make.record("day9", [:])])),
            try await daveTrip.getShare("trip"),
            try await daveTrip.send(.DELETE, daveTrip.zonePath("trip") + "/share"),
        ]
        for reply in replies {
            #expect(reply.status == 404, "\(reply.text)")
            #expect(reply.error?.code == .zoneNotFound)
        }
        let explicit = try await dave.send(.POST, dave.zonePath("trip") + "/changes?owner=alice", body: Data("{}".utf8))
        #expect(explicit.error?.code == .permissionFailure)
        #expect(try await alice.getShare("trip").decode(ZoneShare.self).participants.map(\.userName) == ["bob"])
        #expect(try await alice.fetchChanges("trip").records.map(\.recordName) == ["day1"])
    }
}
