import Foundation
import Testing

/// `nimbus store migrate <device-folder> --dry-run`: each store's plan runs on a copy, so the
/// dry run fails when the upgrade would, and changes nothing either way.
@Suite("nimbus store migrate --dry-run on a device folder", .serialized)
struct DeviceMigrateDryRunTests {
    /// v1 with a required attribute that has no default: a store with posts cannot migrate.
    static let unfillable = """
        {"configurations":{},"entities":[{"name":"Post","attributes":[{"name":"title","type":"string"},\
        {"name":"views","type":"integer64","defaultValue":{"integer":0}},{"name":"rating","type":"double"},\
        {"name":"rank","type":"integer32","isOptional":false}],"relationships":[]}]}
        """

    @Test("a device's dry run reports the failure the upgrade would meet, passes when it would pass, and changes nothing")
    func dryRun() async throws {
        let server = try await SyncServer(devices: 1)
        defer { server.stop() }
        let device = try AppLifeCLITests.devices(server, model: AppLifeCLITests.v1, count: 1)[0]
        try SyncServer.check(SyncServer.run(["store", "insert", device, "Post", "title=kept"]))
        let bad = server.folder.url.appendingPathComponent("model-unfillable.json")
        try Data(Self.unfillable.utf8).write(to: bad)
        let refused = try SyncServer.run(["store", "migrate", device, "--model", bad.path, "--dry-run"])
        #expect(refused.status == 64)
        #expect(refused.error.contains("would not migrate (a trial run on a copy failed)"), "\(refused.error)")
        #expect(refused.error.contains("Post.rank is new and required"), "\(refused.error)")
        let good = server.folder.url.appendingPathComponent("model-v2.json")
        try Data(AppLifeCLITests.v2.utf8).write(to: good)
        let passed = try SyncServer.run(["store", "migrate", device, "--model", good.path, "--dry-run"])
        #expect(passed.status == 0, "\(passed.error)")
        // Nothing changed: the device still has its v1 model and its post.
        #expect(try AppLifeCLITests.fetch(device).map { $0["title"] as? String } == ["kept"])
        let model = try String(contentsOf: URL(fileURLWithPath: device).appendingPathComponent("model.json"), encoding: .utf8)
        #expect(!model.contains("Album"))
    }
}
