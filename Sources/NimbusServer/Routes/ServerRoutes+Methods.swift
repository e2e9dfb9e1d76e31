import Hummingbird
import NimbusWire

extension ServerRoutes {
    /// The methods registered for a concrete request path (`/v1/containers/app/…`), in the
    /// order of ``all``; empty when no route has that path. A `{name}` segment of a template
    /// matches any one non-empty segment.
    ///
    /// For example:
    /// ```swift
    /// ServerRoutes.methods(forPath: "/v1/containers/app/databases/private/zones/notes")   // ["PUT", "DELETE"]
    /// ```
    package static func methods(forPath path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var methods: [String] = []
        for route in all where !methods.contains(route.method) {
            let template = route.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            guard template.count == segments.count else { continue }
            let matches = zip(template, segments).allSatisfy { pattern, segment in
                pattern.hasPrefix("{") ? !segment.isEmpty : pattern == segment
            }
            if matches { methods.append(route.method) }
        }
        return methods
    }

    /// The answer to a request the router found no handler for, on a path that has routes:
    /// 405 with `Allow` for a method none of them takes. `nil` when the path has no route at
    /// all, or takes the method (a 404).
    static func methodNotAllowed(_ request: Request) -> StatusError? {
        let allowed = methods(forPath: request.uri.path)
        guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { return nil }
        var headers = HTTPFields()
        headers[.allow] = allowed.joined(separator: ", ")
        return StatusError(
            WireError(.invalidArguments, "\(request.method) is not allowed on \(request.uri.path); it takes \(allowed.joined(separator: ", "))."),
            status: .methodNotAllowed, headers: headers)
    }

    /// The answer to a plain `GET` (no `Upgrade: websocket`) of a route that only takes a
    /// WebSocket upgrade: 426 with `Upgrade: websocket`.
    static func upgradeRequired(_ request: Request) -> StatusError {
        var headers = HTTPFields()
        headers[.upgrade] = "websocket"
        return StatusError(
            WireError(.invalidArguments, "\(request.uri.path) is a WebSocket: send GET with Upgrade: websocket (RFC 6455)."),
            status: .upgradeRequired, headers: headers)
    }
}
