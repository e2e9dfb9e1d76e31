@testable import NimbusServer
import Testing

@Suite("Push listener liveness (heartbeats)")
struct ListenerLivenessTests {
    @Test("a heartbeat PostgreSQL accepted but the listener never heard back ages; hearing it or a later one clears it")
    func unanswered() {
        let liveness = ListenerLiveness(instance: "a")
        let t0 = ContinuousClock.now
        #expect(liveness.unansweredAge(now: t0) == nil)
        let first = liveness.nextHeartbeat()
        let second = liveness.nextHeartbeat()
        #expect(second == first + 1)
        liveness.accepted(first, at: t0)
        liveness.accepted(second, at: t0 + .seconds(1))
        #expect(liveness.unansweredAge(now: t0 + .seconds(5)) == .seconds(5))
        liveness.heard(first)
        #expect(liveness.unansweredAge(now: t0 + .seconds(5)) == .seconds(4))
        liveness.heard(second)
        #expect(liveness.unansweredAge(now: t0 + .seconds(5)) == nil)
    }

    @Test("a heartbeat heard before its statement returned is not counted as unanswered")
    func heardFirst() {
        let liveness = ListenerLiveness(instance: "a")
        let seq = liveness.nextHeartbeat()
        liveness.heard(seq)
        liveness.accepted(seq, at: .now)
        #expect(liveness.unansweredAge(now: .now + .seconds(60)) == nil)
    }

    @Test("a new listening connection forgets heartbeats sent before it listened")
    func newSession() {
        let liveness = ListenerLiveness(instance: "a")
        let t0 = ContinuousClock.now
        liveness.accepted(liveness.nextHeartbeat(), at: t0)
        liveness.listeningStarted()
        #expect(liveness.unansweredAge(now: t0 + .seconds(60)) == nil)
    }

    @Test("heartbeat payloads are recognised, never taken for change events", arguments: [
        ("heartbeat:abc:7", true), ("heartbeat:abc:x", false), ("{\"container\":\"app\"}", false), ("heartbeat:", false),
    ])
    func payloads(_ payload: String, isHeartbeat: Bool) {
        #expect((HeartbeatPayload.parse(payload) != nil) == isHeartbeat)
        #expect(HeartbeatPayload.parse(HeartbeatPayload.make(instance: "p1", seq: 42))! == ("p1", 42))
    }
}
