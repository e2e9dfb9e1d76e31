import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Operations: health, metrics, request ids", .stopsServers)
struct OperationsTests {
    @Test("/metrics reports requests by route, stored records and bytes, and connected devices")
    func metrics() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        try await alice.save("z", (0..<3).map { Make.record("r\($0)", ["t": .string("x")]) })
        let push = PushListener.connect(url: "ws://127.0.0.1:\(server.port)/v1/containers/app/databases/private/push", token: alice.token!)
        defer { push.close() }
        #expect(await push.next(within: .seconds(10))?.kind == .hello)
        let text = try await alice.send(.GET, "/metrics").text
        #expect(text.contains(#"nimbus_http_requests_total{route="/v1/containers/{container}/databases/{database}/zones/{zone}/records/modify",method="POST",status="200"} 1"#))
        #expect(text.contains("nimbus_records_stored 3"))
        #expect(text.contains("nimbus_connected_devices 1"))
        #expect(text.contains("nimbus_http_request_duration_seconds_bucket"))
        let bytes = text.split(separator: "\n").first { $0.hasPrefix("nimbus_record_bytes_stored ") }
        #expect((bytes.flatMap { Double($0.split(separator: " ")[1]) } ?? 0) > 0)
    }

    @Test("every response carries a request id, and /health names the backend", arguments: Backend.available)
    func health(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let client = TestClient(baseURL: server.baseURL, token: nil, container: "app")
        let reply = try await client.send(.GET, "/health")
        #expect(reply.status == 200)
        #expect(try reply.decode(HealthResponse.self) == HealthResponse(status: "ok", storage: backend.rawValue))
        #expect(reply.headers.first(name: "X-Request-Id")?.isEmpty == false)
        let failure = try await client.send(.GET, "/v1/containers/app/databases/private/zones")
        #expect(failure.headers.first(name: "X-Request-Id")?.isEmpty == false)
    }
}
