@testable import NimbusCloud
import Testing

@Suite("What the engine does after a failure")
struct SyncPolicyTests {
    @Test("transient failures back off exponentially up to the cap, honouring retryAfter", arguments: [
        (1, 0.5), (2, 1.0), (3, 2.0), (10, 256.0), (11, 300.0), (40, 300.0),
    ])
    func backoff(attempt: Int, expected: Double) {
        #expect(SyncPolicy.decide(CloudError(.network, "down"), attempt: attempt) == .retry(after: expected))
    }

    @Test("the server's retryAfter is waited out at least")
    func retryAfter() {
        #expect(SyncPolicy.decide(CloudError(.rateLimited, "slow down", retryAfter: 7), attempt: 1) == .retry(after: 7))
        #expect(SyncPolicy.decide(CloudError(.server, "busy", retryAfter: 3), attempt: 1) == .retry(after: 3))
    }

    @Test("a deleted zone is recreated; failures no retry fixes wait for the app", arguments: [
        (CloudError.Code.zoneNotFound, SyncPolicy.Decision.recreateZone),
        (.notAuthenticated, .wait), (.quotaExceeded, .wait), (.incompatibleServer, .wait), (.permissionFailure, .wait),
    ])
    func permanent(code: CloudError.Code, expected: SyncPolicy.Decision) {
        #expect(SyncPolicy.decide(CloudError(code, "x"), attempt: 1) == expected)
    }
}
