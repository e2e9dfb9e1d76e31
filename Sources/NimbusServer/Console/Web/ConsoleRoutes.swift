import Foundation
import Hummingbird
import Logging
import NIOCore
import NimbusWire

/// The console's routes under `/console`. Every page but the sign-in page and the two static
/// files goes through ``guarded(_:_:_:)``, which checks the administrator's session (and, for
/// a POST, its CSRF token) before the page's code runs.
package struct ConsoleRoutes: Sendable {
    package let console: Console

    package init(console: Console) {
        self.console = console
    }

    /// What a page's code receives: the request, the session, and the posted form.
    struct Visit: Sendable {
        var request: Request
        var context: NimbusRequestContext
        var session: ConsoleSessions.Session
        var storage: any ConsoleStorage
        /// The posted form (POST only).
        var form: FormData
    }

    /// The cookie holding the session's id.
    static let sessionCookie = "nimbus_console"
    /// The cookie holding the sign-in form's CSRF token (before any session exists).
    static let loginCookie = "nimbus_console_login"

    package func register(on router: Router<NimbusRequestContext>) {
        router.get("console/console.css") { _, _ in
            Self.text(ConsoleStatic.css, type: "text/css; charset=utf-8")
        }
        router.get("console/live.js") { _, _ in
            Self.text(ConsoleStatic.script, type: "text/javascript; charset=utf-8")
        }
        registerSignIn(on: router)
        page(router, .get, "console") { try await overview($0) }
        page(router, .get, "console/events") { try await liveEvents($0) }
        page(router, .get, "console/users") { try await users($0) }
        page(router, .get, "console/users/:user") { try await user($0) }
        page(router, .post, "console/users/:user/quota") { try await changeQuota($0) }
        page(router, .post, "console/users/:user/disable") { try await setDisabled($0, true) }
        page(router, .post, "console/users/:user/enable") { try await setDisabled($0, false) }
        page(router, .post, "console/tokens/:token/revoke") { try await revokeToken($0) }
        page(router, .get, "console/zones") { try await publicZones($0) }
        page(router, .get, "console/zones/:zone/records") { try await records($0) }
        page(router, .get, "console/zones/:zone/record") { try await record($0) }
        page(router, .get, "console/zones/:zone/schema") { try await schema($0) }
        page(router, .get, "console/zones/:zone/delete") { try await deleteZone($0) }
        page(router, .post, "console/zones/:zone/delete") { try await deleteZone($0) }
        page(router, .get, "console/zones/:zone/assets/:checksum") { try await asset($0) }
        page(router, .get, "console/shares") { try await shares($0) }
        page(router, .get, "console/requests") { try await requests($0) }
        page(router, .get, "console/audit") { try await audit($0) }
    }

    /// Registers a page behind the session check.
    private func page(
        _ router: Router<NimbusRequestContext>, _ method: HTTPRequest.Method, _ path: RouterPath,
        _ body: @escaping @Sendable (Visit) async throws -> Response
    ) {
        router.on(path, method: method) { request, context in
            try await guarded(request, context, body)
        }
    }

    /// Checks the session (and a POST's CSRF token), then runs the page; errors become pages.
    func guarded(
        _ request: Request, _ context: NimbusRequestContext, _ body: @Sendable (Visit) async throws -> Response
    ) async throws -> Response {
        guard let storage = console.storage else {
            return html(message(
                "The console needs the SQLite storage; this server runs on \(console.services.storage.backendName).", kind: "error"),
                title: "Console not available", status: .notImplemented)
        }
        let now = console.services.clock.now()
        guard let session = console.sessions.session(id: request.cookies[Self.sessionCookie]?.value, now: now) else {
            return signInNeeded(request)
        }
        // The account may have lost its rights since it signed in.
        guard let account = try await storage.consoleUser(id: session.userID), account.isAdministrator, !account.isDisabled else {
            console.sessions.closeAll(userID: session.userID)
            return signInNeeded(request)
        }
        var form = FormData(body: "")
        if request.method == .post {
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: FormData.maximumBytes)
            } catch {
                return html(message("The form is larger than \(FormData.maximumBytes) bytes.", kind: "error"), title: "Form too large", status: .contentTooLarge, session: session)
            }
            form = FormData(body: String(buffer: buffer))
            guard Self.sameSecret(form["csrf"], session.csrf) else {
                return html(message("The form's CSRF token is missing or stale: reload the page and try again.", kind: "error"), title: "Refused", status: .forbidden, session: session)
            }
        }
        do {
            return try await body(Visit(request: request, context: context, session: session, storage: storage, form: form))
        } catch let error as WireError {
            let status: HTTPResponse.Status = switch error.code {
            case .unknownItem, .zoneNotFound: .notFound
            case .permissionFailure: .forbidden
            default: .badRequest
            }
            return html(message(error.message, kind: "error", back: request.headers[HTTPFields.Element.Name("Referer")!]), title: "Could not do that", status: status, session: session)
        } catch {
            context.logger.error("console page failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            return html(message("Something went wrong; the server's log has the details.", kind: "error"), title: "Error", status: .internalServerError, session: session)
        }
    }

    /// A GET without a session goes to the sign-in page; anything else is refused.
    private func signInNeeded(_ request: Request) -> Response {
        if request.method == .get {
            var response = Response.redirect(to: "/console/login", type: .normal)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        return html(message("Sign in as an administrator first.", kind: "error"), title: "Refused", status: .forbidden)
    }

    // MARK: Responses

    /// A whole page.
    func html(_ content: String, title: String, status: HTTPResponse.Status = .ok, session: ConsoleSessions.Session? = nil, section: String? = nil) -> Response {
        return Self.htmlResponse(console.renderer.pageAround(content, title: title, session: session, section: section), status: status)
    }

    /// A page rendered from a template.
    func render(_ template: String, title: String, values: [String: Any], visit: Visit, section: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        var values = values
        values["csrf"] = visit.session.csrf
        return Self.htmlResponse(
            console.renderer.page(template, title: title, values: values, session: visit.session, section: section), status: status)
    }

    /// A message fragment.
    func message(_ text: String, kind: String = "", back: String? = nil) -> String {
        var values: [String: Any] = ["text": text, "kind": kind]
        if let back, back.hasPrefix("/console") || back.contains("/console") { values["back"] = back }
        return console.renderer.fragment("message", values: values)
    }

    static let securityHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8",
        .cacheControl: "no-store",
        HTTPFields.Element.Name("Content-Security-Policy")!:
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        HTTPFields.Element.Name("X-Frame-Options")!: "DENY",
        HTTPFields.Element.Name("X-Content-Type-Options")!: "nosniff",
        HTTPFields.Element.Name("Referrer-Policy")!: "same-origin",
    ]

    static func htmlResponse(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: securityHeaders, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func text(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type, .cacheControl: "no-cache", HTTPFields.Element.Name("X-Content-Type-Options")!: "nosniff"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// A redirect after a POST (303: the browser GETs the target).
    static func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// Compares two secrets in time that does not depend on where they differ.
    static func sameSecret(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8)
        let b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Whether the browser reached the server over TLS (directly or through a proxy that says so).
    static func overTLS(_ request: Request) -> Bool {
        request.uri.scheme?.rawValue == "https"
            || request.headers[HTTPFields.Element.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
            || request.headers[HTTPFields.Element.Name("Forwarded")!]?.lowercased().contains("proto=https") == true
    }
}
