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
        let principal = try await authenticator.authenticate(
            request.headers[.authorization], address: context.channel.remoteAddress?.ipAddress)
        context.principal = principal
        context.logger[metadataKey: "user"] = .string(principal.userName)
        context.logger[metadataKey: "device"] = .string(principal.deviceID)
        context.note.identify(user: principal.userName, device: principal.deviceID)
        return try await next(request, context)
    }
}

/// Turns an `Authorization` header into a ``Principal``.
package struct Authenticator: Sendable {
    let storage: any SyncStorage
    let limiter: RateLimiter
    let clock: ServerClock
    /// Failed attempts per remote address.
    var failures = FailedAuthenticationThrottle()

    /// Checks the token and takes one request from its rate limit.
    /// - Parameters:
    ///   - header: The `Authorization` header.
    ///   - address: The client's IP address: its failed attempts are throttled.
    /// - Throws: `notAuthenticated` for a missing, forged, expired or revoked token;
    ///   `requestRateLimited` when the token is over its rate, or the address made too many
    ///   failed attempts.
    package func authenticate(_ header: String?, address: String? = nil) async throws -> Principal {
        let now = clock.now()
        if let address, let wait = failures.wait(address: address, now: now) {
            throw WireError(
                .requestRateLimited, "Too many requests with tokens that are not valid from this address; retry after \(String(format: "%.2f", wait)) seconds.",
                retryAfter: wait)
        }
        let row: DeviceToken
        do {
            row = try await validToken(header)
        } catch let error as WireError where error.code == .notAuthenticated {
            // Only attempts that carry credentials cost a lookup worth throttling.
            if let address, header != nil { failures.recordFailure(address: address, now: now) }
            throw error
        }
        if let wait = limiter.admit(tokenID: row.id, now: clock.now()) {
            throw WireError(
                .requestRateLimited, "Too many requests from this token; retry after \(String(format: "%.2f", wait)) seconds.",
                retryAfter: wait)
        }
        return Principal(userID: row.user.id, userName: row.user.name, deviceID: row.device, tokenID: row.id)
    }

    /// Checks the token without charging its rate limit: an open push socket asks this
    /// periodically, and is closed once the token was revoked or expired.
    /// - Throws: `notAuthenticated`, as ``authenticate(_:)``.
    package func recheck(_ header: String?) async throws {
        _ = try await principal(header)
    }

    /// The principal of a token already admitted by ``authenticate(_:address:)`` for this
    /// request (a push socket's upgrade is one request: its rate is charged once).
    /// - Throws: `notAuthenticated`, as ``authenticate(_:address:)``.
    package func principal(_ header: String?) async throws -> Principal {
        let row = try await validToken(header)
        return Principal(userID: row.user.id, userName: row.user.name, deviceID: row.device, tokenID: row.id)
    }

    /// The token's row when the header carries a live token. The scheme is matched without
    /// regard to case (RFC 9110 §11.1: `bearer` and `Bearer` are the same scheme).
    private func validToken(_ header: String?) async throws -> DeviceToken {
        guard let token = Self.bearerToken(header) else {
            throw WireError(.notAuthenticated, "Send `Authorization: Bearer <token>`; create a token with `nimbus tokens create`.")
        }
        guard token.hasPrefix(TokenHasher.prefix), token.utf8.count < 200,
            let row = try await storage.token(hash: TokenHasher.digest(token))
        else {
            throw WireError(.notAuthenticated, "The bearer token is not valid.")
        }
        if row.revoked { throw WireError(.notAuthenticated, "The bearer token was revoked.") }
        if let expiry = row.expiresAt, expiry <= clock.now() {
            throw WireError(.notAuthenticated, "The bearer token expired; create a new one with `nimbus tokens create`.")
        }
        return row
    }

    /// The credentials of a `Bearer` header (any case, any run of spaces after the scheme).
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let scheme = "bearer"
        guard header.utf8.count > scheme.utf8.count, header.prefix(scheme.count).lowercased() == scheme else { return nil }
        let rest = header.dropFirst(scheme.count)
        guard rest.first == " " else { return nil }
        let token = rest.trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
