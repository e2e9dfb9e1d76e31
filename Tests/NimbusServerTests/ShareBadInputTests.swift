import Foundation
import NimbusWire
import Testing

/// Bad share requests get a clear, typed error and change nothing. Runs on each available backend.
@Suite("Sharing: bad input gets a typed error and changes nothing", .stopsServers)
struct ShareBadInputTests {
    static let bodies: [(String, String)] = [
        ("malformed JSON", #"{"participants": [ {"#),
        ("not an object", "[1, 2]"),
        ("participants missing", "{}"),
        ("participants not a list", #"{"participants": "bob"}"#),
        ("a participant without a permission", #"{"participants": [{"userName": "bob"}]}"#),
        ("an unknown permission", #"{"participants": [{"userName": "bob", "permission": "admin"}]}"#),
        ("a participant with permission none", #"{"participants": [{"userName": "bob", "permission": "none"}]}"#),
        ("an unknown public permission", #"{"participants": [], "publicPermission": "everyone"}"#),
        ("a duplicate participant", #"{"participants": [{"userName": "bob", "permission": "readOnly"}, {"userName": "bob", "permission": "readWrite"}]}"#),
        ("a user name with a slash", #"{"participants": [{"userName": "a/b", "permission": "readOnly"}]}"#),
        ("the owner as a participant", #"{"participants": [{"userName": "alice", "permission": "readWrite"}]}"#),
    ]

    static let cases: [(Backend, String, String)] = Backend.available.flatMap { backend in bodies.map { (backend, $0.0, $0.1) } }

    @Test("malformed or invalid share bodies get invalidArguments and create no share", arguments: cases)
    func badBodies(_ backend: Backend, _ label: String, _ body: String) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        try await alice.createZone("trip")
        let reply = try await alice.send(.PUT, alice.zonePath("trip") + "/share", body: Data(body.utf8))
        #expect(reply.status == 400, "\(label): \(reply.text)")
        #expect(reply.error?.code == .invalidArguments, "\(label)")
        #expect(reply.error?.message.isEmpty == false)
        #expect(try await alice.getShare("trip").error?.code == .unknownItem, "\(label)")
        #expect(try await bob.shared().zoneIDs().isEmpty)
    }

    @Test("unknown zones, too many participants and the public database are refused", arguments: Backend.available)
    func refusedShares(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        try await alice.createZone("trip")

        let nowhere = try await alice.share("nowhere", ["bob": .readOnly])
        #expect(nowhere.status == 404)
        #expect(nowhere.error?.code == .zoneNotFound)
        #expect(try await alice.getShare("nowhere").error?.code == .zoneNotFound)
        #expect(try await alice.send(.DELETE, alice.zonePath("nowhere") + "/share").error?.code == .zoneNotFound)

        let crowd = (0...SaveShareRequest.maximumParticipants).map { ShareParticipant(userName: "u\($0)", permission: .readOnly) }
        let tooMany = try await alice.send(.PUT, alice.zonePath("trip") + "/share", json: SaveShareRequest(participants: crowd))
        #expect(tooMany.status == 413)
        #expect(tooMany.error?.code == .limitExceeded)

        var alicePublic = alice
        alicePublic.database = "public"
        try await alicePublic.createZone("board")
        let publicShare = try await alicePublic.share("board", ["bob": .readOnly])
        #expect(publicShare.status == 403)
        #expect(publicShare.error?.code == .permissionFailure)
        #expect(try await bob.shared().zoneIDs().isEmpty)
    }

    @Test("only the owner changes a share; participants cannot create or delete shared zones", arguments: Backend.available)
    func nonOwners(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let carol = try await server.user("carol")
        try await alice.createZone("trip")
        try await alice.shareAccepted("trip", ["bob": .readWrite], by: [bob])
        let original = try await alice.getShare("trip").decode(ZoneShare.self)
        let bobTrip = bob.shared(owner: "alice")

        let viaShared = try await bobTrip.share("trip", ["bob": .readWrite, "carol": .readWrite])
        #expect(viaShared.status == 403)
        #expect(viaShared.error?.code == .permissionFailure)
        var bobAsOwner = bob
        bobAsOwner.owner = "alice"
        let viaPrivate = try await bobAsOwner.share("trip", ["carol": .readWrite])
        #expect(viaPrivate.status == 403)
        #expect(viaPrivate.error?.code == .permissionFailure)
        let ownZone = try await bob.share("trip", ["carol": .readWrite])
        #expect(ownZone.error?.code == .zoneNotFound)
        #expect(try await carol.shared(owner: "alice").send(.DELETE, "/v1/containers/app/databases/shared/zones/trip/share").error?.code == .zoneNotFound)

        #expect(try await bobTrip.send(.PUT, bobTrip.zonePath("trip")).error?.code == .permissionFailure)
        #expect(try await bobTrip.send(.DELETE, bobTrip.zonePath("trip")).error?.code == .permissionFailure)
        let noOwner = try await bob.shared().changes("trip")
        #expect(noOwner.status == 400)
        #expect(noOwner.error?.code == .invalidArguments)

        #expect(try await alice.getShare("trip").decode(ZoneShare.self) == original)
        #expect(try await carol.shared().zoneIDs().isEmpty)
        #expect(try await alice.zoneIDs() == [ZoneID(zoneName: "trip")])
    }
}
