import Foundation
@testable import NimbusServer
import Testing

/// Every numeric setting is range-checked before anything starts, with an error naming it;
/// an unknown log level is refused instead of becoming `info`.
@Suite("Settings out of range are refused with a clear error")
struct SettingRangeTests {
    static let outOfRange: [(String, @Sendable (inout ServerConfiguration) -> Void)] = [
        ("tombstone horizon", { $0.tombstoneHorizonSeconds = 0 }),
        ("tombstone horizon", { $0.tombstoneHorizonSeconds = .max }),
        ("maximum clock skew", { $0.maximumClockSkew = .seconds(Int64.max) }),
        ("idle timeout", { $0.idleTimeout = .seconds(Int64.max) }),
        ("request head timeout", { $0.requestHeadTimeout = .seconds(Int64.max) }),
        ("request body timeout", { $0.requestBodyTimeout = .seconds(Int64.max) }),
        ("push authentication interval", { $0.pushAuthenticationInterval = .seconds(Int64.max) }),
        ("default quota", { $0.defaultQuotaBytes = -1 }),
        ("default quota", { $0.defaultQuotaBytes = .max }),
        ("asset grace period", { $0.assetGraceSeconds = .max }),
        ("maintenance interval", { $0.maintenanceIntervalSeconds = -5 }),
        ("largest asset", { $0.maximumAssetBytes = 0 }),
        ("minimum request body rate", { $0.minimumRequestBodyRate = .max }),
        ("connection cap per address", { $0.maximumConnectionsPerAddress = .max }),
        ("rate limit", { $0.rateLimitPerSecond = 1e300 }),
    ]

    @Test("an out-of-range setting is refused, naming it", arguments: 0..<outOfRange.count)
    func refused(_ index: Int) {
        let (name, change) = Self.outOfRange[index]
        var configuration = ServerConfiguration(dataDirectory: "/nonexistent")
        change(&configuration)
        let error = #expect(throws: ServerConfiguration.InvalidError.self) { try configuration.validate() }
        #expect(error?.message.contains(name) == true, "\(error?.message ?? "")")
    }

    @Test("the defaults and the edges of each range are accepted")
    func accepted() throws {
        var configuration = ServerConfiguration(dataDirectory: "/nonexistent")
        try configuration.validate()
        configuration.tombstoneHorizonSeconds = ServerConfiguration.longestSeconds
        configuration.maximumClockSkew = .seconds(ServerConfiguration.longestSeconds)
        configuration.defaultQuotaBytes = 0
        configuration.maintenanceIntervalSeconds = 0
        try configuration.validate()
    }

    @Test("`nimbus serve` refuses out-of-range numbers and an unknown log level before creating anything", arguments: [
        (["--tombstone-horizon", "0"], "tombstone horizon"),
        (["--tombstone-horizon", "9223372036854775807"], "tombstone horizon"),
        (["--max-clock-skew", "9223372036854775807"], "maximum clock skew"),
        (["--idle-timeout", "9223372036854775807"], "idle timeout"),
        (["--log-level", "shout"], "shout"),
    ])
    func serveRefuses(_ arguments: [String], _ mention: String) throws {
        let directory = NSTemporaryDirectory() + "nimbus-range-\(UUID().uuidString)"
        let result = try NimbusCLI.run(["serve", "--data-dir", directory, "--port", "0"] + arguments)
        #expect(result.status != 0)
        #expect(result.error.contains(mention), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: directory), "the refused command created the data folder")
    }

    @Test("`nimbus tokens create --expires-in` out of range is refused; the library refuses it too")
    func tokenLifetime() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-range-\(UUID().uuidString)"
        let result = try NimbusCLI.run(["tokens", "create", "--user", "alice", "--device", "phone", "--expires-in", "9223372036854775807", "--data-dir", directory])
        #expect(result.status != 0)
        #expect(result.error.contains("--expires-in"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: directory))

        let storage = try SQLiteStorage(path: NSTemporaryDirectory() + "nimbus-range-\(UUID().uuidString).sqlite")
        try await storage.migrate()
        let admin = AccountAdmin(storage: storage)
        _ = try await admin.addUser(name: "alice")
        for lifetime in [Int64.max, 0, -1] {
            await #expect(throws: (any Error).self) { _ = try await admin.createToken(userName: "alice", device: "phone", expiresInSeconds: lifetime) }
        }
        _ = try await admin.createToken(userName: "alice", device: "phone", expiresInSeconds: 60)
    }
}
