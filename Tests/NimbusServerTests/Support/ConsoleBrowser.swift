import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@testable import NimbusServer

/// A minimal browser for the console: keeps cookies, does not follow redirects, and reads
/// the CSRF token out of the last page.
struct ConsoleBrowser: Sendable {
    /// A client that reports redirects instead of following them.
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    var baseURL: String
    var cookies: [String: String] = [:]
    /// The CSRF token of the last page that had a form.
    var csrf: String?

    init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// Signs in with a token and expects success.
    static func signedIn(_ server: TestServer, token: String) async throws -> ConsoleBrowser {
        var browser = ConsoleBrowser(baseURL: server.baseURL)
        let reply = try await browser.signIn(token: token)
        guard reply.status == 303, browser.cookies[ConsoleRoutes.sessionCookie] != nil else {
            throw HarnessError("sign-in failed: \(reply.status) \(reply.text)")
        }
        _ = try await browser.get("/console")
        return browser
    }

    /// Opens the sign-in page, then posts the token with the form's CSRF token.
    mutating func signIn(token: String, headers: [(String, String)] = []) async throws -> Reply {
        _ = try await get("/console/login")
        return try await post("/console/login", form: [("token", token)], headers: headers)
    }

    mutating func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
        try await send(.GET, path, body: nil, headers: headers)
    }

    /// Posts a form; the page's CSRF token is added unless `csrf` is given.
    mutating func post(_ path: String, form: [(String, String)], csrf: String? = nil, headers: [(String, String)] = []) async throws -> Reply {
        var fields = form
        if let token = csrf ?? self.csrf { fields.append(("csrf", token)) }
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try await send(.POST, path, body: body, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")])
    }

    private mutating func send(_ method: HTTPMethod, _ path: String, body: String?, headers: [(String, String)]) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if !cookies.isEmpty {
            request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await Self.client.execute(request, timeout: .seconds(60))
        let buffer = try await response.body.collect(upTo: 16 << 20)
        let reply = Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: buffer))
        for header in response.headers["Set-Cookie"] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if header.lowercased().contains("max-age=0") || value.isEmpty { cookies.removeValue(forKey: name) } else { cookies[name] = value }
        }
        if let token = Self.csrfToken(in: reply.text) { csrf = token }
        return reply
    }

    /// The `Set-Cookie` header for a cookie name in a reply.
    static func setCookie(_ name: String, in reply: Reply) -> String? {
        reply.headers["Set-Cookie"].first { $0.hasPrefix(name + "=") }
    }

    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value="([0-9a-f]{64})""#, options: .regularExpression) else { return nil }
        return String(html[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }
}

extension TestServer {
    /// Adds an administrator and returns a token of theirs.
    func administrator(_ name: String = "root") async throws -> String {
        let admin = AccountAdmin(storage: storage, clock: services.clock)
        _ = try await admin.addUser(name: name, administrator: true)
        return try await admin.createToken(userName: name, device: "console")
    }
}
