import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

extension ShareConformanceTests {
    @Test("membership tombstones are purged at the tombstone horizon; older database tokens get changeTokenExpired",
          arguments: Backend.available)
    func membershipHorizon(_ backend: Backend) async throws {
        let clock = ManualClock(start: 1_700_000_000_000)
        let server = try await TestServer.start(backend, clock: clock.clock) { $0.tombstoneHorizonSeconds = 60 }
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let carol = try await server.user("carol")
        try await alice.createZone("trip")
        let share = try await alice.shareAccepted("trip", ["bob": .readOnly, "carol": .readOnly], by: [bob, carol])
        let bobOld = try await bob.shared().databaseChanges().changeToken
        let carolOld = try await carol.shared().databaseChanges().changeToken
        // Bob loses access now; carol a minute later.
        try await alice.shareOK("trip", ["carol": .readOnly])
        let bobRecent = try await bob.shared().databaseChanges().changeToken
        #expect(try await bob.shared().databaseChanges(since: bobOld).deletedZones == [Self.trip])
        clock.advance(by: 61_000)
        try await alice.shareOK("trip", [:])

        let purged = try await MaintenanceService.runOnce(server.services)
        #expect(purged.memberships == 1)
        // Bob's token from before his removal can no longer learn of it.
        let expired = try await bob.shared().send(.POST, bob.shared().databasePath + "/changes", json: FetchDatabaseChangesRequest(since: bobOld))
        #expect(expired.status == 410)
        #expect(expired.error?.code == .changeTokenExpired)
        // A token from after the removal, and a fetch from the start, still work.
        let caughtUp = try await bob.shared().databaseChanges(since: bobRecent)
        #expect(caughtUp.changedZones.isEmpty && caughtUp.deletedZones.isEmpty)
        let fresh = try await bob.shared().databaseChanges()
        #expect(fresh.changedZones.isEmpty && fresh.deletedZones.isEmpty)
        // Carol's removal is younger than the horizon: kept, and her old token still hears of it.
        #expect(try await carol.shared().databaseChanges(since: carolOld).deletedZones == [Self.trip])
        // The owner still sees bob, removed, after the purge.
        #expect(try await alice.getShare("trip").decode(ZoneShare.self).participants.first { $0.userName == "bob" }?.state == .removed)
        // Sharing again after the purge works from the fresh token, once bob accepts again.
        try await alice.shareOK("trip", ["bob": .readWrite])
        #expect(try await bob.shared().databaseChanges(since: fresh.changeToken).changedZones.isEmpty)
        try await bob.acceptOK(share.url)
        #expect(try await bob.shared().databaseChanges(since: fresh.changeToken).changedZones == [Self.trip])

        clock.advance(by: 61_000)
        #expect(try await MaintenanceService.runOnce(server.services).memberships == 1)
        let carolExpired = try await carol.shared().send(
            .POST, carol.shared().databasePath + "/changes", json: FetchDatabaseChangesRequest(since: carolOld))
        #expect(carolExpired.error?.code == .changeTokenExpired)
        #expect(try await bob.shared().zoneIDs() == [Self.trip])
    }
}
