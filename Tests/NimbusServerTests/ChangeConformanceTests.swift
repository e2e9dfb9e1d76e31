import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// The conformance suite, part 3: change feeds, horizons, limits, quotas, races.
@Suite("Changes, limits and races (conformance)", .stopsServers)
struct ChangeConformanceTests {
    @Test("zone changes come in pages with moreComing, each change once, in order", arguments: Backend.available)
    func paging(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await alice.save("z", (0..<25).map { Make.record(String(format: "r%02d", $0), ["n": .int64(Int64($0))]) })
        var token: ChangeToken?
        var names: [String] = []
        var pages: [Bool] = []
        repeat {
            let page = try await alice.fetchChanges("z", since: token, limit: 10)
            names += page.records.map(\.recordName)
            pages.append(page.moreComing)
            token = page.changeToken
        } while pages.last == true && pages.count < 10
        #expect(pages == [true, true, false])
        #expect(names == (0..<25).map { String(format: "r%02d", $0) })
        // Only what changed after the token comes back.
        try await alice.save("z", [Make.record("r07", ["n": .int64(700)], time: 2)])
        let next = try await alice.fetchChanges("z", since: token)
        #expect(next.records.map(\.recordName) == ["r07"])
        #expect(try await alice.fetchChanges("z", since: next.changeToken).records.isEmpty)
    }

    @Test("a token older than the tombstone horizon gets changeTokenExpired; a fresh fetch works", arguments: Backend.available)
    func horizon(_ backend: Backend) async throws {
        let clock = ManualClock(start: 1_700_000_000_000)
        let server = try await TestServer.start(backend, clock: clock.clock) { $0.tombstoneHorizonSeconds = 60 }
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let old = try await alice.fetchChanges("z").changeToken
        try await alice.save("z", [Make.record("a", ["n": .int64(1)]), Make.record("b", ["n": .int64(2)])])
        _ = try await alice.modify("z", ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "a", stamp: Make.stamp(9))]))
        let recent = try await alice.fetchChanges("z").changeToken
        clock.advance(by: 61_000)
        let purged = try await MaintenanceService.runOnce(server.services)
        #expect(purged.tombstones == 1)
        let expired = try await alice.changes("z", since: old)
        #expect(expired.status == 410)
        #expect(expired.error?.code == .changeTokenExpired)
        #expect(try await alice.fetchChanges("z", since: recent).records.isEmpty)
        let fresh = try await alice.fetchChanges("z")
        #expect(fresh.records.map(\.recordName) == ["b"])
        #expect(fresh.deletions.isEmpty)
    }

    @Test("batches over 400 items, records over 1 MB and bodies over 2 MB get limitExceeded", arguments: Backend.available)
    func limits(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let tooMany = try await alice.modify("z", ModifyRecordsRequest(saves: (0...400).map { Make.record("r\($0)", ["n": .int64(1)]) }))
        #expect(tooMany.status == 413)
        #expect(tooMany.error?.code == .limitExceeded)
        let big = Make.record("big", ["blob": .string(String(repeating: "x", count: 1_100_000))])
        let oversizeRecord = try await alice.modify("z", ModifyRecordsRequest(saves: [big]))
        #expect(oversizeRecord.error?.code == .limitExceeded)
        #expect(oversizeRecord.error?.itemErrors?.map(\.name) == ["big"])
        let halves = (0..<3).map { Make.record("h\($0)", ["blob": .string(String(repeating: "y", count: 800_000))]) }
        let oversizeBody = try await alice.modify("z", ModifyRecordsRequest(saves: halves))
        #expect(oversizeBody.status == 413)
        #expect(oversizeBody.error?.code == .limitExceeded)
        #expect(try await alice.fetchChanges("z").records.isEmpty)
        let exactly400 = try await alice.modify("z", ModifyRecordsRequest(saves: (0..<400).map { Make.record("r\($0)", ["n": .int64(1)]) }))
        #expect(exactly400.status == 200)
    }

    @Test("a save past the user's quota gets quotaExceeded and stores nothing; deleting frees room", arguments: Backend.available)
    func quota(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice", quotaBytes: 3_000)
        try await alice.createZone("z")
        try await alice.save("z", [Make.record("a", ["t": .string(String(repeating: "a", count: 1_500))])])
        let over = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("b", ["t": .string(String(repeating: "b", count: 1_500))])]))
        #expect(over.status == 507)
        #expect(over.error?.code == .quotaExceeded)
        #expect(try await alice.lookup("z", ["b"]).results[0].record == nil)
        _ = try await alice.modify("z", ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "a", stamp: Make.stamp(2))]))
        let after = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("b", ["t": .string(String(repeating: "b", count: 1_500))])]))
        #expect(after.status == 200)
    }

    @Test("concurrent writers racing on one change tag: exactly one wins, the others get the winner's record", arguments: Backend.available)
    func race(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend) { $0.rateLimitBurst = 1_000 }
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let base = try #require(try await alice.save("z", [Make.record("r", ["v": .int64(0)])], policy: .ifServerRecordUnchanged).results[0].record)
        let replies = try await withThrowingTaskGroup(of: ModifyRecordsResponse.self) { group in
            for writer in 1...16 {
                group.addTask {
                    let record = Make.record("r", ["v": .int64(Int64(writer))], time: 2, device: "w\(writer)", changeTag: base.changeTag)
                    return try await alice.modify("z", ModifyRecordsRequest(saves: [record], savePolicy: .ifServerRecordUnchanged))
                        .decode(ModifyRecordsResponse.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = replies.compactMap { $0.results[0].record }
        let losers = replies.compactMap { $0.results[0].error }
        #expect(winners.count == 1)
        #expect(losers.count == 15)
        #expect(losers.allSatisfy { $0.code == .serverRecordChanged && $0.serverRecord?.changeTag == winners.first?.changeTag })
        #expect(try await alice.lookup("z", ["r"]).results[0].record == winners.first)
    }

    @Test("concurrent writers of different records lose nothing", arguments: Backend.available)
    func noLostWrites(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend) { $0.rateLimitBurst = 1_000 }
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for batch in 0..<5 {
                        try await alice.save("z", (0..<10).map { Make.record("w\(writer)-b\(batch)-\($0)", ["n": .int64(1)]) })
                    }
                }
            }
            try await group.waitForAll()
        }
        var token: ChangeToken?
        var count = 0
        var more = true
        while more {
            let page = try await alice.fetchChanges("z", since: token, limit: 100)
            count += page.records.count
            token = page.changeToken
            more = page.moreComing
        }
        #expect(count == 400)
    }
}
