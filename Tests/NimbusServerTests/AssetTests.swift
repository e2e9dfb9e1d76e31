import Crypto
import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Assets", .stopsServers)
struct AssetTests {
    static func sha256(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test("an upload is stored under its SHA-256 and downloads whole or by range", arguments: Backend.available)
    func uploadAndDownload(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let upload = try await alice.send(.PUT, "/v1/containers/app/assets", body: bytes)
        #expect(upload.status == 201)
        let asset = try upload.decode(AssetUploadResponse.self).asset
        #expect(asset == AssetReference(checksum: Self.sha256(bytes), size: Int64(bytes.count)))
        let whole = try await alice.send(.GET, "/v1/containers/app/assets/\(asset.checksum)")
        #expect(whole.status == 200)
        #expect(whole.body == bytes)
        let part = try await alice.send(.GET, "/v1/containers/app/assets/\(asset.checksum)", headers: [("Range", "bytes=100-199")])
        #expect(part.status == 206)
        #expect(part.body == bytes[100...199])
        #expect(part.headers.first(name: "Content-Range") == "bytes 100-199/300000")
        let tail = try await alice.send(.GET, "/v1/containers/app/assets/\(asset.checksum)", headers: [("Range", "bytes=-10")])
        #expect(tail.body == bytes.suffix(10))
        let outside = try await alice.send(.GET, "/v1/containers/app/assets/\(asset.checksum)", headers: [("Range", "bytes=400000-")])
        #expect(outside.status == 416)
        #expect(outside.headers.first(name: "Content-Range") == "bytes */300000")
        #expect(outside.error?.code == .invalidArguments)
        let malformed = try await alice.send(.GET, "/v1/containers/app/assets/\(asset.checksum)", headers: [("Range", "bytes=9-3")])
        #expect(malformed.status == 400)
        let wrongClaim = try await alice.send(.PUT, "/v1/containers/app/assets/\(String(repeating: "0", count: 64))", body: bytes)
        #expect(wrongClaim.error?.code == .invalidArguments)
    }

    @Test("an upload with no bytes is refused and charges nothing", arguments: ["/v1/containers/app/assets", "/v1/containers/app/assets/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"])
    func emptyUpload(_ path: String) async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let reply = try await alice.send(.PUT, path)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.error?.code == .invalidArguments)
        #expect(reply.error?.message.contains("no bytes") == true)
        #expect(try await server.storage.user(named: "alice")?.usedBytes == 0)
        #expect(!server.services.assets.exists("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    @Test("the quota binds where bytes are charged: a chunked upload without Content-Length cannot pass it", arguments: Backend.available)
    func chunkedUploadQuota(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice", quotaBytes: 10)
        let payload = String(repeating: "x", count: 20)
        let request = [
            "PUT /v1/containers/app/assets HTTP/1.1", "Host: 127.0.0.1", "Authorization: Bearer \(alice.token!)",
            "Transfer-Encoding: chunked", "", String(payload.utf8.count, radix: 16), payload, "0", "", "",
        ].joined(separator: "\r\n")
        let reply = try await RawHTTP.exchange(port: server.port, request)
        #expect(reply.status == 507, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.errorCode == "quotaExceeded")
        #expect(try await server.storage.user(named: "alice")?.usedBytes == 0)
        #expect(!server.services.assets.exists(Self.sha256(Data(payload.utf8))))
    }

    @Test("concurrent uploads that each fit but not together: one is charged, the other gets quotaExceeded", arguments: Backend.available)
    func concurrentUploadQuota(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice", quotaBytes: 10)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for content in ["aaaaaaaa", "bbbbbbbb"] {
                group.addTask { try await alice.send(.PUT, "/v1/containers/app/assets", body: Data(content.utf8)).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.sorted() == [201, 507])
        #expect(try await server.storage.user(named: "alice")?.usedBytes == 8)
    }

    @Test("a record may not refer to an asset with a size other than the stored one", arguments: Backend.available)
    func wrongAssetSize(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let asset = try await alice.send(.PUT, "/v1/containers/app/assets", body: Data("five!".utf8)).decode(AssetUploadResponse.self).asset
        #expect(asset.size == 5)
        let wrong = AssetReference(checksum: asset.checksum, size: 6)
        let reply = try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("r", ["a": .asset(wrong)])]))
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.error?.code == .invalidArguments)
        #expect(reply.error?.itemErrors?.first?.message.contains("5 bytes") == true)
        #expect(try await alice.fetchChanges("z").records.isEmpty)
        try await alice.save("z", [Make.record("r", ["a": .asset(asset)])])
    }

    @Test("only the uploader and readers of a referring record may download; others cannot refer to it")
    func permissions() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let asset = try await alice.send(.PUT, "/v1/containers/app/assets", body: Data("private photo".utf8)).decode(AssetUploadResponse.self).asset
        let denied = try await bob.send(.GET, "/v1/containers/app/assets/\(asset.checksum)")
        #expect(denied.status == 403)
        #expect(denied.error?.code == .permissionFailure)
        try await bob.createZone("z")
        let stolen = try await bob.modify("z", ModifyRecordsRequest(saves: [Make.record("r", ["p": .asset(asset)])]))
        #expect(stolen.error?.code == .unknownItem)
        var alicePublic = alice
        alicePublic.database = "public"
        try await alicePublic.createZone("board")
        try await alicePublic.save("board", [Make.record("post", ["photo": .asset(asset)])])
        #expect(try await bob.send(.GET, "/v1/containers/app/assets/\(asset.checksum)").body == Data("private photo".utf8))
    }

    @Test("unreferenced assets are collected after the grace period; referenced ones stay")
    func collection() async throws {
        let clock = ManualClock(start: 1_700_000_000_000)
        let server = try await TestServer.start(.sqlite, clock: clock.clock) { $0.assetGraceSeconds = 60 }
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let kept = try await alice.send(.PUT, "/v1/containers/app/assets", body: Data("kept".utf8)).decode(AssetUploadResponse.self).asset
        let orphan = try await alice.send(.PUT, "/v1/containers/app/assets", body: Data("orphan".utf8)).decode(AssetUploadResponse.self).asset
        try await alice.save("z", [Make.record("r", ["a": .asset(kept)])])
        #expect(try await MaintenanceService.runOnce(server.services).assets == 0)
        clock.advance(by: 61_000)
        #expect(try await MaintenanceService.runOnce(server.services).assets == 1)
        #expect(server.services.assets.exists(kept.checksum))
        #expect(!server.services.assets.exists(orphan.checksum))
        #expect(try await alice.send(.GET, "/v1/containers/app/assets/\(orphan.checksum)").status == 403)
        // Deleting the referring record makes the other asset collectable too.
        _ = try await alice.modify("z", ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "r", stamp: Make.stamp(9))]))
        #expect(try await MaintenanceService.runOnce(server.services).assets == 1)
        #expect(!server.services.assets.exists(kept.checksum))
    }
}
