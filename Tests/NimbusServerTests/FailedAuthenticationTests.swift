import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// An address that keeps presenting tokens that are not valid is slowed down: after a burst
/// of failures its requests are answered 429 with a short `Retry-After`, before any database
/// lookup, until it earns attempts back.
@Suite("Failed authentication is throttled per address", .stopsServers)
struct FailedAuthenticationTests {
    @Test("after 20 forged tokens an address gets 429 with a Retry-After of a few seconds; time gives attempts back")
    func throttled() async throws {
        let clock = ManualClock(start: 1_700_000_000_000)
        let server = try await TestServer.start(.sqlite, clock: clock.clock)
        let alice = try await server.user("alice")
        var forged = alice
        var statuses: [Int] = []
        for attempt in 0..<21 {
            forged.token = "nmb_forged\(attempt)"
            statuses.append(try await forged.send(.GET, forged.databasePath + "/zones").status)
        }
        #expect(statuses.prefix(20).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.last == 429, "\(statuses)")
        let refused = try await alice.send(.GET, alice.databasePath + "/zones")
        #expect(refused.status == 429, "a blocked address is refused before its token is looked up")
        #expect(refused.error?.code == .requestRateLimited)
        let retryAfter = try #require(refused.headers.first(name: "Retry-After").flatMap(Int.init))
        #expect((1...60).contains(retryAfter))
        clock.advance(by: Int64(retryAfter) * 1000)
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 200)
    }

    @Test("the throttle's memory is bounded and successful requests cost nothing")
    func bounded() {
        let throttle = FailedAuthenticationThrottle(perSecond: 1, burst: 2, maximumAddresses: 100)
        for index in 0..<10_000 { throttle.recordFailure(address: "10.0.\(index / 256).\(index % 256)", now: 0) }
        #expect(throttle.trackedAddresses <= 100)
        #expect(throttle.wait(address: "192.0.2.1", now: 0) == nil)
        throttle.recordFailure(address: "192.0.2.1", now: 0)
        throttle.recordFailure(address: "192.0.2.1", now: 0)
        #expect(throttle.wait(address: "192.0.2.1", now: 0) == 1)
        #expect(throttle.wait(address: "192.0.2.1", now: 1_000) == nil)
    }
}
