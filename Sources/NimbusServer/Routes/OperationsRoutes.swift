import Hummingbird
import NimbusWire

/// `GET /health` and `GET /metrics`, open without a token so probes and scrapers reach them.
struct OperationsRoutes {
    let services: ServerServices

    func register(on router: Router<NimbusRequestContext>) {
        router.get("health") { _, _ in
            do {
                try await services.storage.ping()
            } catch {
                throw WireError(.serviceUnavailable, "The \(services.storage.backendName) storage does not answer.", retryAfter: 1)
            }
            return try JSONResponse.make(HealthResponse(status: "ok", storage: services.storage.backendName))
        }
        router.get("metrics") { _, _ in
            if let statistics = try? await services.storage.statistics() {
                services.metrics.recordsStored.set(Double(statistics.records))
                services.metrics.bytesStored.set(Double(statistics.bytes))
            }
            services.metrics.connectedDevices.set(Double(services.changeFeed.connectedCount))
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: services.metrics.render())))
        }
    }
}
