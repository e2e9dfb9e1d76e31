import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("HLC stamps from the future are refused", .stopsServers)
struct ClockSkewTests {
    static let start: Int64 = 1_700_000_000_000

    /// An HLC reading `milliseconds` after the server's clock (ms << 16 | counter).
    static func hlc(after milliseconds: Int64, counter: Int64 = 3) -> Int64 { (start + milliseconds) << 16 | counter }

    @Test("a save stamped beyond the skew bound gets invalidArguments and stores nothing", arguments: Backend.available)
    func futureSave(_ backend: Backend) async throws {
        let clock = ManualClock(start: Self.start)
        let server = try await TestServer.start(backend, clock: clock.clock)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let far = try await alice.modify("z", ModifyRecordsRequest(saves: [
            Make.record("ok", ["t": .string("now")], time: Self.hlc(after: 0)),
            Make.record("late", ["t": .string("wins forever")], time: Self.hlc(after: 11 * 60_000)),
        ]))
        #expect(far.status == 400, "\(far.text)")
        #expect(far.error?.code == .invalidArguments)
        #expect(far.error?.message.contains("ahead of the server") == true, "\(far.error?.message ?? "")")
        #expect(far.error?.itemErrors?.map(\.name) == ["late"])
        #expect(try await alice.fetchChanges("z").records.isEmpty)
        // Within the bound it is an ordinary save.
        try await alice.save("z", [Make.record("near", ["t": .string("a minute fast")], time: Self.hlc(after: 9 * 60_000))])
    }

    @Test("a deletion stamped beyond the bound is refused too")
    func futureDeletion() async throws {
        let clock = ManualClock(start: Self.start)
        let server = try await TestServer.start(.sqlite, clock: clock.clock)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await alice.save("z", [Make.record("r", ["t": .string("x")], time: Self.hlc(after: 0))])
        let reply = try await alice.modify("z", ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "r", stamp: Make.stamp(Self.hlc(after: 3_600_000)))]))
        #expect(reply.error?.code == .invalidArguments)
        #expect(try await alice.lookup("z", ["r"]).results[0].record != nil)
    }

    @Test("the bound is configurable")
    func configurable() async throws {
        let clock = ManualClock(start: Self.start)
        let server = try await TestServer.start(.sqlite, clock: clock.clock) { $0.maximumClockSkew = .seconds(3600) }
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await alice.save("z", [Make.record("r", ["t": .string("x")], time: Self.hlc(after: 11 * 60_000))])
        let reply = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("s", ["t": .string("y")], time: Self.hlc(after: 61 * 60_000))]))
        #expect(reply.error?.code == .invalidArguments)
    }
}
