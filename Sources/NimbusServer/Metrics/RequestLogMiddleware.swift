import Hummingbird
import Logging

/// Logs one structured line per request (request id, method, route, status, duration) and
/// counts it in ``ServerMetrics`` and, when given, the console's ``ConsoleTelemetry``.
package struct RequestLogMiddleware: RouterMiddleware {
    package typealias Context = NimbusRequestContext

    let metrics: ServerMetrics
    var telemetry: ConsoleTelemetry?
    var clock: ServerClock = .system
    var pushConnections: @Sendable () -> Int = { 0 }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let route = context.endpointPath ?? "unmatched"
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        metrics.recordRequest(route: route, method: request.method.rawValue, status: response.status.code, duration: elapsed)
        if let telemetry {
            let note = context.note.content
            var entry = RequestLogEntry(
                at: clock.now(), method: request.method.rawValue, path: request.uri.path, route: route,
                status: response.status.code, milliseconds: milliseconds, user: note.user, device: note.device)
            entry.bytesUp = max(note.bytesUp, request.headers[.contentLength].flatMap { Int($0) } ?? 0)
            entry.bytesDown = response.body.contentLength ?? 0
            entry.recordsUp = note.recordsUp
            entry.recordsDown = note.recordsDown
            telemetry.record(entry, pushConnections: pushConnections())
        }
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "route": .string(route),
                "status": .stringConvertible(response.status.code),
                "duration_ms": .stringConvertible(milliseconds.rounded()),
            ])
        return response
    }
}
