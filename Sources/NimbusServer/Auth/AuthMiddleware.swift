import Hummingbird
import NimbusWire

/// Authenticates every `/v1` request by its bearer token, then applies the token's rate limit.
package struct AuthMiddleware: RouterMiddleware {
    package typealias Context = NimbusRequestContext

    let authenticator: Authenticator

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let principal = try await authenticator.authenticate(request.headers[.authorization])
        context.principal = principal
        context.logger[metadataKey: "user"] = .string(principal.userName)
        context.logger[metadataKey: "device"] = .string(principal.deviceID)
        return try await next(request, context)
    }
}

/// Turns an `Authorization` header into a ``Principal``.
package struct Authenticator: Sendable {
    let storage: any SyncStorage
    let limiter: RateLimiter
    let clock: ServerClock

    /// - Throws: `notAuthenticated` for a missing, forged, expired or revoked token;
    ///   `requestRateLimited` when the token is over its rate.
    package func authenticate(_ header: String?) async throws -> Principal {
        guard let header, header.hasPrefix("Bearer ") else {
            throw WireError(.notAuthenticated, "Send `Authorization: Bearer <token>`; create a token with `nimbus tokens create`.")
        }
        let token = String(header.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
        guard token.hasPrefix(TokenHasher.prefix), token.utf8.count < 200,
            let row = try await storage.token(hash: TokenHasher.digest(token))
        else {
            throw WireError(.notAuthenticated, "The bearer token is not valid.")
        }
        let now = clock.now()
        if row.revoked { throw WireError(.notAuthenticated, "The bearer token was revoked.") }
        if let expiry = row.expiresAt, expiry <= now {
            throw WireError(.notAuthenticated, "The bearer token expired; create a new one with `nimbus tokens create`.")
        }
        if let wait = limiter.admit(tokenID: row.id, now: now) {
            throw WireError(
                .requestRateLimited, "Too many requests from this token; retry after \(String(format: "%.2f", wait)) seconds.",
                retryAfter: wait)
        }
        return Principal(userID: row.user.id, userName: row.user.name, deviceID: row.device, tokenID: row.id)
    }
}
