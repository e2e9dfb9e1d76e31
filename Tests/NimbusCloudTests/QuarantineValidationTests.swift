import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

/// A record that breaks a validation rule of this device's model (another app version had a
/// looser rule) is set aside with its reason; the rest of the page applies, and this
/// device's own edits still go out.
@Suite("Quarantine of records that fail validation", .serialized)
struct QuarantineValidationTests {
    static func model(maxLength: Int?) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post") {
                AttributeDescription("title", .string, maxLength: maxLength)
                AttributeDescription("views", .integer64, defaultValue: 0)
            }
        }
    }

    @Test("a title longer than this model allows is quarantined; the other posts arrive")
    func validationFailure() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let loose = try LifeModels.device(server, token: server.tokens[0], model: try Self.model(maxLength: nil), folder: try TemporaryDirectory())
        let strict = try LifeModels.device(server, token: server.tokens[1], model: try Self.model(maxLength: 10), folder: try TemporaryDirectory())
        try await loose.edit { context in
            for title in ["short", "a title far longer than ten characters", "fine"] {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue(title, forKey: "title")
            }
        }
        try await loose.container.syncNow()
        let summary = try await strict.container.syncNow()
        #expect(summary.imported == 2)
        #expect(try await strict.snapshot("Post", key: "title").keys.sorted() == ["fine", "short"])
        let kept = try strict.container.quarantinedRecords()
        #expect(kept.count == 1, "\(kept)")
        #expect(kept.first?.reason.contains("title") == true, "\(kept)")
        // Sync goes on both ways.
        try await strict.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("mine", forKey: "title")
        }
        #expect(try await strict.container.syncNow().exported == 1)
        try await loose.container.syncNow()
        #expect(try await loose.snapshot("Post", key: "title")["mine"] != nil)
    }
}
