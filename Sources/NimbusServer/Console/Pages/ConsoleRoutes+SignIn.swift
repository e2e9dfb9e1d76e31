import Foundation
import Hummingbird
import NIOCore
import NimbusWire

extension ConsoleRoutes {
    /// `GET/POST /console/login` and `POST /console/logout`.
    func registerSignIn(on router: Router<NimbusRequestContext>) {
        router.get("console/login") { request, _ in
            signInPage(request, error: nil, status: .ok)
        }
        router.post("console/login") { request, context in
            try await signIn(request, context)
        }
        router.post("console/logout") { request, context in
            try await guarded(request, context) { visit in
                console.sessions.close(id: visit.session.id)
                var response = Self.seeOther("/console/login")
                response.setCookie(Self.cookie(Self.sessionCookie, value: "", maxAge: 0, request: request))
                return response
            }
        }
    }

    /// The sign-in form, with a fresh CSRF token in the form and in a cookie.
    private func signInPage(_ request: Request, error: String?, status: HTTPResponse.Status) -> Response {
        let csrf = ConsoleSessions.randomToken()
        var values: [String: Any] = ["csrf": csrf]
        if let error { values["error"] = error }
        var response = Self.htmlResponse(
            console.renderer.page("login", title: "Sign in", values: values, session: nil), status: status)
        response.setCookie(Self.cookie(Self.loginCookie, value: csrf, maxAge: 3600, request: request))
        return response
    }

    /// Checks the posted token: it must be live and belong to an administrator who is not
    /// disabled. Failed attempts count against the address like failed API requests.
    private func signIn(_ request: Request, _ context: NimbusRequestContext) async throws -> Response {
        guard let storage = console.storage else {
            return html(message("The console needs the SQLite storage.", kind: "error"), title: "Console not available", status: .notImplemented)
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: FormData.maximumBytes)
        } catch {
            return signInPage(request, error: "The form is too large.", status: .contentTooLarge)
        }
        let form = FormData(body: String(buffer: body))
        guard let expected = request.cookies[Self.loginCookie]?.value, Self.sameSecret(form["csrf"], expected) else {
            return signInPage(request, error: "The form expired: sign in again.", status: .forbidden)
        }
        let token = (form["token"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let principal: Principal
        do {
            principal = try await console.services.authenticator.authenticate(
                "Bearer " + token, address: context.channel.remoteAddress?.ipAddress)
        } catch let error as WireError where error.code == .requestRateLimited {
            return signInPage(request, error: error.message, status: .tooManyRequests)
        } catch let error as WireError where error.code == .notAuthenticated {
            return signInPage(request, error: "That token is not valid, or not an administrator's.", status: .forbidden)
        }
        guard let account = try await storage.consoleUser(id: principal.userID), account.isAdministrator, !account.isDisabled else {
            return signInPage(request, error: "That token is not valid, or not an administrator's.", status: .forbidden)
        }
        let now = console.services.clock.now()
        let session = console.sessions.open(userID: account.id, userName: account.name, now: now)
        try await storage.appendAudit(AuditEntry(at: now, administrator: account.name, action: "sign in", target: "device \(principal.deviceID)", detail: ""))
        var response = Self.seeOther("/console")
        response.setCookie(Self.cookie(Self.sessionCookie, value: session.id, maxAge: Int(ConsoleSessions.lifetime / 1000), request: request))
        response.setCookie(Self.cookie(Self.loginCookie, value: "", maxAge: 0, request: request))
        return response
    }

    /// A console cookie: `HttpOnly`, `SameSite=Strict`, path `/console`, `Secure` over TLS.
    static func cookie(_ name: String, value: String, maxAge: Int, request: Request) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/console", secure: overTLS(request), httpOnly: true, sameSite: .strict)
    }
}
