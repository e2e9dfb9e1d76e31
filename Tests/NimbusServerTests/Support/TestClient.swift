import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NimbusWire

/// A reply from the server: status, headers and body.
struct Reply: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }

    /// The error body, when the reply is a failure.
    var error: WireError? { try? decode(ErrorResponse.self).error }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// An HTTP client for one device of one user, speaking the wire types over a real socket.
struct TestClient: Sendable {
    var baseURL: String
    var token: String?
    var container: String
    var database = "private"
    /// The zone owner named by `?owner=` on every request (zones of the shared database).
    var owner: String?

    func send(_ method: HTTPMethod, _ path: String, body: Data? = nil, headers: [(String, String)] = []) async throws -> Reply {
        let query = owner.map { (path.contains("?") ? "&" : "?") + "owner=" + $0 } ?? ""
        var request = HTTPClientRequest(url: baseURL + path + query)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: buffer))
    }

    func send<T: Encodable>(_ method: HTTPMethod, _ path: String, json: T) async throws -> Reply {
        try await send(method, path, body: try JSONEncoder().encode(json))
    }

    var databasePath: String { "/v1/containers/\(container)/databases/\(database)" }

    func zonePath(_ zone: String) -> String {
        databasePath + "/zones/" + (zone.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? zone)
    }

    // MARK: Typed calls

    @discardableResult
    func createZone(_ zone: String) async throws -> Zone {
        let reply = try await send(.PUT, zonePath(zone))
        guard reply.status == 200 || reply.status == 201 else { throw HarnessError("create zone: \(reply.status) \(reply.text)") }
        return try reply.decode(Zone.self)
    }

    func modify(_ zone: String, _ request: ModifyRecordsRequest) async throws -> Reply {
        try await send(.POST, zonePath(zone) + "/records/modify", json: request)
    }

    /// Saves and expects every item to succeed.
    @discardableResult
    func save(_ zone: String, _ records: [Record], policy: SavePolicy = .changedKeys, atomic: Bool = false) async throws -> ModifyRecordsResponse {
        let reply = try await modify(zone, ModifyRecordsRequest(saves: records, savePolicy: policy, atomic: atomic))
        guard reply.status == 200 else { throw HarnessError("save: \(reply.status) \(reply.text)") }
        return try reply.decode(ModifyRecordsResponse.self)
    }

    func changes(_ zone: String, since: ChangeToken? = nil, limit: Int? = nil) async throws -> Reply {
        try await send(.POST, zonePath(zone) + "/changes", json: FetchZoneChangesRequest(since: since, limit: limit))
    }

    func fetchChanges(_ zone: String, since: ChangeToken? = nil, limit: Int? = nil) async throws -> FetchZoneChangesResponse {
        let reply = try await changes(zone, since: since, limit: limit)
        guard reply.status == 200 else { throw HarnessError("changes: \(reply.status) \(reply.text)") }
        return try reply.decode(FetchZoneChangesResponse.self)
    }

    func databaseChanges(since: ChangeToken? = nil, limit: Int? = nil) async throws -> FetchDatabaseChangesResponse {
        let reply = try await send(.POST, databasePath + "/changes", json: FetchDatabaseChangesRequest(since: since, limit: limit))
        guard reply.status == 200 else { throw HarnessError("database changes: \(reply.status) \(reply.text)") }
        return try reply.decode(FetchDatabaseChangesResponse.self)
    }

    func lookup(_ zone: String, _ names: [String]) async throws -> LookupRecordsResponse {
        let reply = try await send(.POST, zonePath(zone) + "/records/lookup", json: LookupRecordsRequest(recordNames: names))
        guard reply.status == 200 else { throw HarnessError("lookup: \(reply.status) \(reply.text)") }
        return try reply.decode(LookupRecordsResponse.self)
    }
}

/// Builds records for tests.
enum Make {
    static func stamp(_ time: Int64, _ device: String = "d1") -> HLCStamp { HLCStamp(time: time, device: device) }

    static func record(_ name: String, type: String = "Post", _ fields: [String: FieldValue], time: Int64 = 1, device: String = "d1", changeTag: String? = nil) -> Record {
        Record(
            recordName: name, recordType: type,
            fields: fields.mapValues { Field($0, stamp: stamp(time, device)) }, changeTag: changeTag)
    }
}
