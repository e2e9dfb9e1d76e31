import Hummingbird
import Logging

/// Logs one structured line per request (request id, method, route, status, duration) and
/// counts it in ``ServerMetrics``.
package struct RequestLogMiddleware: RouterMiddleware {
    package typealias Context = NimbusRequestContext

    let metrics: ServerMetrics

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(route: route, method: request.method.rawValue, status: response.status.code, duration: elapsed)
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "route": .string(route),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .stringConvertible((Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000).rounded()),
            ])
        return response
    }
}
