import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

/// Large values end to end against a real server: records measured as they are sent, values
/// that don't fit moved to assets, uploads on a slow link, and only the assets a device needs
/// downloaded.
@Suite("Sizes and slow links", .serialized)
struct LargeValueTests {
    /// Photos with two binary attributes (each may be large), and a local-only entity.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Cloud": ["Photo"], "Local": ["Location"]]) {
            EntityDescription("Photo") {
                AttributeDescription("name", .string)
                AttributeDescription("front", .binaryData)
                AttributeDescription("back", .binaryData)
            }
            EntityDescription("Location") {
                AttributeDescription("latitude", .double, defaultValue: 0)
            }
        }
    }

    static func bytes(_ count: Int, seed: UInt64) -> Data {
        var generator = SeededGenerator(seed: seed)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func insertPhoto(_ device: Device, name: String, front: Data?, back: Data? = nil) async throws {
        try await device.edit { context in
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue(name, forKey: "name")
            photo.setValue(front, forKey: "front")
            photo.setValue(back, forKey: "back")
        }
    }

    /// The photos of a device by name: (front, back).
    static func photos(_ device: Device) async throws -> [String: (front: Data?, back: Data?)] {
        let context = device.container.newBackgroundContext()
        return try await context.perform {
            var result: [String: (front: Data?, back: Data?)] = [:]
            for photo in try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")) {
                result[photo.value(forKey: "name") as? String ?? "?"] = (photo.value(forKey: "front") as? Data, photo.value(forKey: "back") as? Data)
            }
            return result
        }
    }

    /// The server's count of asset downloads (`GET …/assets/{checksum}`), from its metrics.
    static func assetDownloads(_ server: SyncServer) async throws -> Int {
        let (data, _) = try await URLSession.shared.data(from: server.url.appendingPathComponent("metrics"))
        return String(decoding: data, as: UTF8.self).split(separator: "\n").reduce(0) { total, line in
            guard line.hasPrefix("nimbus_http_requests_total{"), line.contains("assets"), line.contains("method=\"GET\""),
                  let count = line.split(separator: " ").last.flatMap({ Double($0) }) else { return total }
            return total + Int(count)
        }
    }

    static func devices(_ server: SyncServer) throws -> (Device, Device) {
        let model = try model()
        return (try Device(server: server, token: server.tokens[0], model: model), try Device(server: server, token: server.tokens[1], model: model))
    }

    @Test("a record with two 450 KB binary values (over 1 MiB as JSON) syncs between two devices")
    func twoLargeValues() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let (a, b) = try Self.devices(server)
        let front = Self.bytes(450 * 1024, seed: 1), back = Self.bytes(450 * 1024, seed: 2)
        try await Self.insertPhoto(a, name: "pair", front: front, back: back)
        #expect(try await a.container.syncNow().exported == 1)
        try await b.container.syncNow()
        let received = try await Self.photos(b)["pair"]
        #expect(received?.front == front)
        #expect(received?.back == back)
        // An edit of one of them travels too, and the device that made it keeps its bytes.
        let edited = Self.bytes(450 * 1024, seed: 3)
        try await b.edit { context in
            let photo = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")).first!
            photo.setValue(edited, forKey: "back")
        }
        try await b.container.syncNow()
        try await a.container.syncNow()
        #expect(try await Self.photos(a)["pair"]?.back == edited)
        #expect(try await Self.photos(a)["pair"]?.front == front)
    }

    @Test("a string that JSON escapes to over 1 MiB (200 KB of control characters) syncs between two devices")
    func escapedString() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let (a, b) = try Self.devices(server)
        let name = String(repeating: "\u{01}", count: 200 * 1024)   // 6 bytes each as JSON: \u0001
        try await Self.insertPhoto(a, name: name, front: nil)
        #expect(try await a.container.syncNow().exported == 1)
        try await b.container.syncNow()
        #expect(try await Self.photos(b).keys.first == name)
    }

    @Test("an asset upload on a slow link that outlasts the transport's timeout succeeds: the timeout is idle time, not a deadline")
    func slowLink() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        // 1 MB at 256 KB/s takes about 4 s; the device's transport gives up after 2 s without progress.
        let proxy = try ThrottledProxy(upstreamPort: server.port, bytesPerSecond: 256 * 1024)
        defer { proxy.stop() }
        let model = try Self.model()
        let slow = try Device(server: server, token: server.tokens[0], model: model, serverURL: proxy.url, idleTimeoutSeconds: 2)
        let other = try Device(server: server, token: server.tokens[1], model: model)
        let movie = Self.bytes(1024 * 1024, seed: 4)
        try await Self.insertPhoto(slow, name: "movie", front: movie)
        #expect(try await slow.container.syncNow().exported == 1)
        try await other.container.syncNow()
        #expect(try await Self.photos(other)["movie"]?.front == movie)
    }

    @Test("a device downloads only the assets it needs: not its own, not unchanged ones")
    func onlyNeededAssets() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let (a, b) = try Self.devices(server)
        let big = Self.bytes(900 * 1024, seed: 5)
        try await Self.insertPhoto(a, name: "big", front: big)
        try await a.container.syncNow()
        try await a.container.syncNow()   // its own record comes back
        #expect(try await Self.assetDownloads(server) == 0)
        try await b.container.syncNow()
        #expect(try await Self.photos(b)["big"]?.front == big)
        #expect(try await Self.assetDownloads(server) == 1)
        // Another field changes on A; the asset does not, and B doesn't fetch it again.
        try await a.edit { context in
            let photo = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")).first!
            photo.setValue("big, renamed", forKey: "name")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        #expect(try await Self.photos(b)["big, renamed"]?.front == big)
        #expect(try await Self.assetDownloads(server) == 1)
    }

    @Test("an asset missing on the server sets its one record aside; the rest of the page applies")
    func missingAsset() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let (a, b) = try Self.devices(server)
        let big = Self.bytes(900 * 1024, seed: 6)
        try await Self.insertPhoto(a, name: "lost", front: big)
        try await Self.insertPhoto(a, name: "small", front: Data("inline".utf8))
        #expect(try await a.container.syncNow().exported == 2)
        // The server loses the asset's file.
        let assets = server.folder.url.appendingPathComponent("server/assets")
        let files = FileManager.default.enumerator(at: assets, includingPropertiesForKeys: [.fileSizeKey])!
            .compactMap { $0 as? URL }.filter { (try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize) == big.count }
        try #require(files.count == 1)
        try FileManager.default.removeItem(at: files[0])

        let summary = try await b.container.syncNow()
        #expect(summary.imported == 1)
        #expect(try await Self.photos(b).keys.sorted() == ["small"])
        let kept = try b.container.quarantinedRecords()
        #expect(kept.count == 1)
        #expect(kept.first?.reason.contains("missing on the server") == true, "\(kept)")
        // Sync goes on for everything else.
        try await Self.insertPhoto(a, name: "later", front: nil)
        try await a.container.syncNow()
        try await b.container.syncNow()
        #expect(try await Self.photos(b).keys.sorted() == ["later", "small"])
    }
}
