import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NimbusWire
import Synchronization

/// The transport to `nimbus serve` over HTTP (AsyncHTTPClient), with push over WebSocket.
///
/// For example:
/// ```swift
/// let transport = HTTPTransport(options: options)
/// try await transport.checkServer()
/// ```
public struct HTTPTransport: CloudTransport {
    /// The options that name the server, container, database and token.
    public let options: CloudContainerOptions
    /// How long a transfer may go without a byte moving (sent or received) before it fails.
    ///
    /// There is no deadline on a whole request: a large asset on a slow link uploads as long as
    /// its bytes keep moving. For example:
    /// ```swift
    /// var transport = HTTPTransport(options: options)
    /// transport.idleTimeout = .seconds(10)
    /// ```
    public var idleTimeout: TimeAmount = .seconds(30)

    /// The idle timeout, under its former name (it was a deadline on the whole request).
    @available(*, deprecated, renamed: "idleTimeout")
    public var requestTimeout: TimeAmount {
        get { idleTimeout }
        set { idleTimeout = newValue }
    }

    /// Creates a transport on the shared HTTP client.
    /// - Parameter options: The server, container, database and token.
    public init(options: CloudContainerOptions) {
        self.options = options
    }

    /// The process's client for this transport's idle timeout.
    var client: HTTPClient { Self.client(idleTimeout: idleTimeout) }

    /// One client per idle timeout for every transport of the process (connection pool, event
    /// loops); a refused or unreachable server fails within seconds.
    /// - Parameter idleTimeout: The read timeout (no byte received for that long); `nil` for
    ///   requests with a body, which a ``TransferWatchdog`` watches instead.
    static func client(idleTimeout: TimeAmount?) -> HTTPClient {
        clients.withLock { clients in
            if let client = clients[idleTimeout?.nanoseconds] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.timeout = .init(connect: .seconds(3), read: idleTimeout)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[idleTimeout?.nanoseconds] = client
            return client
        }
    }

    private static let clients = Mutex<[Int64?: HTTPClient]>([:])

    var databasePath: String {
        "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))/databases/\(options.databaseScope.rawValue)"
    }

    /// A zone route: `…/zones/{zone}{rest}`, with `?owner=` for a zone another user owns
    /// (zones of the shared database).
    func zonePath(_ zone: ZoneID, _ rest: String = "") -> String {
        let path = databasePath + "/zones/\(Self.escape(zone.zoneName))" + rest
        guard let owner = zone.ownerName else { return path }
        return path + "?owner=" + (owner.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? owner)
    }

    static func escape(_ component: String) -> String {
        component.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? component
    }

    var baseURL: String {
        var text = options.serverURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    public func checkServer() async throws {
        let (status, body) = try await send(.GET, "/health", body: nil, authenticated: false)
        guard status == 200 else { throw Self.error(status: status, body: body, path: "/health") }
        let health: HealthResponse
        do { health = try JSONDecoder().decode(HealthResponse.self, from: body) } catch {
            throw CloudError(.incompatibleServer, "\(baseURL) is not a Nimbus sync server (its /health answer is not one)")
        }
        guard health.protocolVersion == NimbusWire.protocolVersion else {
            throw CloudError(.incompatibleServer, "the server at \(baseURL) speaks sync protocol version \(health.protocolVersion); "
                + "this client speaks \(NimbusWire.protocolVersion): update the app or the server")
        }
    }

    public func account() async throws -> AccountResponse {
        let path = "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))/account"
        return try decode(AccountResponse.self, try await call(.GET, path, body: nil), path: path)
    }

    public func createZone(_ zone: ZoneID) async throws {
        _ = try await call(.PUT, zonePath(zone), body: nil)
    }

    public func deleteZone(_ zone: ZoneID) async throws {
        _ = try await call(.DELETE, zonePath(zone), body: nil)
    }

    public func modify(_ request: ModifyRecordsRequest, in zone: ZoneID) async throws -> ModifyRecordsResponse {
        let path = zonePath(zone, "/records/modify")
        let (status, body) = try await send(.POST, path, body: try WireJSONWriter.encode(request, capacity: 64 * 1024))
        // 207: some items failed; the per-item results say which.
        guard status == 200 || status == 207 else { throw Self.error(status: status, body: body, path: path) }
        return try decode(ModifyRecordsResponse.self, body, path: path)
    }

    public func fetchChanges(_ request: FetchZoneChangesRequest, in zone: ZoneID) async throws -> FetchZoneChangesResponse {
        let path = zonePath(zone, "/changes")
        return try decode(FetchZoneChangesResponse.self, try await call(.POST, path, body: try JSONEncoder().encode(request)), path: path)
    }

    public func lookup(_ names: [String], in zone: ZoneID) async throws -> [LookupResult] {
        let path = zonePath(zone, "/records/lookup")
        let body = try JSONEncoder().encode(LookupRecordsRequest(recordNames: names))
        return try decode(LookupRecordsResponse.self, try await call(.POST, path, body: body), path: path).results
    }

    public func uploadAsset(_ data: Data) async throws -> AssetReference {
        let checksum = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let path = "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))/assets/\(checksum)"
        return try decode(AssetUploadResponse.self, try await call(.PUT, path, body: data), path: path).asset
    }

    public func downloadAsset(_ asset: AssetReference) async throws -> Data {
        let path = "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))/assets/\(asset.checksum)"
        let data = try await call(.GET, path, body: nil)
        let checksum = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        guard checksum == asset.checksum else {
            throw CloudError(.server, "the asset \(asset.checksum) downloaded with checksum \(checksum); it will be fetched again")
        }
        return data
    }

    public func downloadAsset(_ asset: AssetReference, to file: URL) async throws {
        let path = "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))/assets/\(asset.checksum)"
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .GET
        request.headers.add(name: "Authorization", value: "Bearer \(options.token)")
        var hasher = SHA256()
        do {
            let response = try await client.execute(request, deadline: .distantFuture)
            ServerClock.observe(server: baseURL, dateHeader: response.headers.first(name: "Date"))
            guard response.status == .ok else {
                let body = try await response.body.collect(upTo: 1 << 20)
                throw Self.error(status: Int(response.status.code), body: Data(buffer: body), path: path)
            }
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw CloudError(.server, "the asset \(asset.checksum) could not be written to \(file.path)")
            }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            for try await buffer in response.body {
                buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                try handle.write(contentsOf: Data(buffer: buffer))
            }
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(.network, "GET \(baseURL)\(path) failed: \(error)")
        }
        let checksum = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        guard checksum == asset.checksum else {
            try? FileManager.default.removeItem(at: file)
            throw CloudError(.server, "the asset \(asset.checksum) downloaded with checksum \(checksum); it will be fetched again")
        }
    }

    // MARK: Requests

    /// Sends a request and returns the body of a 2xx answer; anything else throws.
    func call(_ method: HTTPMethod, _ path: String, body: Data?) async throws -> Data {
        let (status, data) = try await send(method, path, body: body)
        guard (200..<300).contains(status) else { throw Self.error(status: status, body: data, path: path) }
        return data
    }

    func send(_ method: HTTPMethod, _ path: String, body: Data?, authenticated: Bool = true) async throws -> (Int, Data) {
        // The server's `retryAfter` is honoured here for short waits; longer ones reach the
        // engine, which backs off.
        var attempt = 0
        while true {
            let (status, data) = try await sendOnce(method, path, body: body, authenticated: authenticated)
            attempt += 1
            guard status == 429, attempt < 5 else { return (status, data) }
            let wait = Self.error(status: status, body: data, path: path).retryAfter ?? 1
            guard wait <= 5 else { return (status, data) }
            try await Pause.sleep(for: .milliseconds(Int(max(wait, 0.05 * Double(attempt)) * 1000)))
        }
    }

    private func sendOnce(_ method: HTTPMethod, _ path: String, body: Data?, authenticated: Bool) async throws -> (Int, Data) {
        // Nothing leaves the device over plain http to another machine unless allowed.
        try options.checkTransportSecurity()
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if authenticated { request.headers.add(name: "Authorization", value: "Bearer \(options.token)") }
        let baseURL = self.baseURL
        guard let body else {
            // No body: the client's read timeout is the idle timeout.
            do {
                let response = try await client.execute(request, deadline: .distantFuture)
                ServerClock.observe(server: baseURL, dateHeader: response.headers.first(name: "Date"))
                let bytes = try await response.body.collect(upTo: 1 << 30)
                return (Int(response.status.code), Data(buffer: bytes))
            } catch {
                throw CloudError(.network, "\(method.rawValue) \(baseURL)\(path) failed: \(error)")
            }
        }
        // A body goes in chunks, each pulled as the connection drains the last ones, watched
        // for progress rather than bounded in time (see ``TransferWatchdog``).
        let watchdog = TransferWatchdog(idle: Self.duration(idleTimeout), bodyBytes: body.count)
        request.headers.add(name: "Content-Type", value: method == .PUT && path.contains("/assets") ? "application/octet-stream" : "application/json")
        request.body = .stream(DataChunks(data: body, onPull: watchdog.progressed, onEnd: watchdog.bodyEnded),
                               length: .known(Int64(body.count)))
        let client = Self.client(idleTimeout: nil)
        let prepared = request
        do {
            return try await watchdog.run {
                let response = try await client.execute(prepared, deadline: .distantFuture)
                ServerClock.observe(server: baseURL, dateHeader: response.headers.first(name: "Date"))
                let bytes = try await response.body.collect(upTo: 1 << 30)
                return (Int(response.status.code), Data(buffer: bytes))
            }
        } catch is TransferWatchdog.Stalled {
            throw CloudError(.network, "\(method.rawValue) \(baseURL)\(path) stalled: no progress for \(watchdog.allowance)")
        } catch {
            throw CloudError(.network, "\(method.rawValue) \(baseURL)\(path) failed: \(error)")
        }
    }

    static func duration(_ amount: TimeAmount) -> Duration { .nanoseconds(amount.nanoseconds) }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data, path: String) throws -> T {
        // Import pages and modify results: a reader that declines anything unusual, so that
        // JSONDecoder still decides what is accepted and words the errors.
        if let readable = T.self as? any WireJSONReadable.Type,
           let value = data.withUnsafeBytes({ readable.readJSON($0) }) as? T {
            return value
        }
        do { return try JSONDecoder().decode(type, from: data) } catch {
            throw CloudError(.incompatibleServer, "the server's answer to \(path) is not a \(type): \(error)")
        }
    }

    /// The error a non-2xx answer stands for: the server's structured error when it sent one.
    static func error(status: Int, body: Data, path: String) -> CloudError {
        if let response = try? JSONDecoder().decode(ErrorResponse.self, from: body) {
            return CloudError(response.error)
        }
        switch status {
        case 401: return CloudError(.notAuthenticated, "the server refused the device's token (HTTP 401 on \(path))")
        case 404: return CloudError(.incompatibleServer, "the server has no \(path) (HTTP 404): is it a Nimbus sync server of this version?")
        case 429: return CloudError(.rateLimited, "the server asked to slow down (HTTP 429)")
        default: return CloudError(.server, "the server answered HTTP \(status) to \(path)")
        }
    }
}
