import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Rate limits: zero, infinity and bad settings")
struct RateLimitTests {
    @Test("a rate of 0 means unlimited: the bucket never refuses and never computes an infinite wait")
    func zeroRateIsUnlimited() {
        let limiter = RateLimiter(perSecond: 0, burst: 5)
        for request in 0..<50 {
            #expect(limiter.admit(tokenID: 1, now: 1_000) == nil, "request \(request)")
        }
    }

    @Test("a Retry-After header is a whole number of seconds, and absent for a wait that is not finite")
    func retryAfterHeader() {
        #expect(ErrorMiddleware.retryAfterHeader(0.2) == "1")
        #expect(ErrorMiddleware.retryAfterHeader(3) == "3")
        #expect(ErrorMiddleware.retryAfterHeader(.infinity) == nil)
        #expect(ErrorMiddleware.retryAfterHeader(.nan) == nil)
        #expect(ErrorMiddleware.retryAfterHeader(1e300) == "3600")
        #expect(ErrorMiddleware.retryAfterHeader(Double(Int.max)) == "3600")
    }

    @Test("nimbus serve --rate-limit 0 keeps answering past the burst")
    func zeroRateProcess() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-rate-\(UUID().uuidString)"
        _ = try ServerProcess.run(["users", "add", "alice", "--data-dir", directory])
        let token = try ServerProcess.run(["tokens", "create", "--user", "alice", "--device", "phone", "--data-dir", directory])
        let (server, _) = try await ServerProcess.start(dataDirectory: directory, extra: ["--rate-limit", "0", "--rate-burst", "5"])
        defer { server.terminate() }
        let client = TestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token, container: "app")
        for request in 0..<12 {
            let status = try? await client.send(.GET, client.databasePath + "/zones").status
            #expect(status == 200, "request \(request)")
        }
        #expect(server.process.isRunning)
    }

    @Test("negative or non-finite rates and a burst below one are refused at start with a clear error", arguments: [
        (-1.0, 10.0), (Double.nan, 10.0), (Double.infinity, 10.0), (10.0, 0.5), (10.0, -3.0),
    ])
    func badSettings(_ rate: Double, _ burst: Double) async throws {
        var configuration = ServerConfiguration(dataDirectory: NSTemporaryDirectory() + "nimbus-rate-\(UUID().uuidString)", port: 0)
        configuration.rateLimitPerSecond = rate
        configuration.rateLimitBurst = burst
        let error = try #require(throws: ServerConfiguration.InvalidError.self) { try configuration.validate() }
        #expect(error.message.contains("rate"))
    }
}
