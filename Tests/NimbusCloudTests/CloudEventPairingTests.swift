import Foundation
import Nimbus
@testable import NimbusCloud
import NimbusTesting
import Synchronization
import Testing

/// Issue 28, item 5 and the first hour: events pair a start with its end as
/// `NSPersistentCloudKitContainer.Event` does (identifier, start and end dates, succeeded),
/// and a pass with nothing to exchange posts nothing.
@Suite("Cloud events: pairs of start and end, nothing for an idle pass", .serialized)
struct CloudEventPairingTests {
    /// Every event the container posts while `body` runs (posted synchronously, so none is missed).
    private func events(of container: CloudContainer, during body: () async throws -> Void) async throws -> [CloudEvent] {
        let seen = Mutex<[CloudEvent]>([])
        let observer = NotificationCenter.default.addObserver(forName: CloudEvent.notification, object: container, queue: nil) { note in
            if let event = note.userInfo?[CloudEvent.userInfoKey] as? CloudEvent { seen.withLock { $0.append(event) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try await body()
        return seen.withLock { $0 }
    }

    @Test("an export's started and ended events share an identifier and start date; the end has its end date and succeeded")
    func pairs() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        try await a.container.syncNow()
        try await b.container.syncNow()
        let sent = try await events(of: a.container) {
            try await a.insertTag("swift")
            try await a.container.syncNow()
        }
        let exports = sent.filter { $0.kind == .export }
        let started = try #require(exports.first { $0.phase == .started })
        let ended = try #require(exports.first { $0.phase == .ended })
        #expect(started.identifier == ended.identifier)
        #expect(started.startDate == ended.startDate)
        #expect(started.endDate == nil && !started.succeeded)
        let end = try #require(ended.endDate)
        #expect(end >= ended.startDate)
        #expect(ended.succeeded && ended.recordCount == 1)
        #expect(Set(exports.map(\.identifier)).count == 1, "one export with work: \(exports)")

        let received = try await events(of: b.container) { try await b.container.syncNow() }
        let imports = received.filter { $0.kind == .import }
        #expect(imports.map(\.phase).first == .started && imports.map(\.phase).last == .ended, "\(imports)")
        #expect(Set(imports.map(\.identifier)).count == 1)
        #expect(imports.last?.recordCount == 1)
    }

    @Test("a sync with nothing to send or apply posts no event")
    func idlePass() async throws {
        let server = try await SyncServer(devices: 1)
        defer { server.stop() }
        let a = try Device(server: server, token: server.tokens[0], model: try SyncModel.make())
        try await a.insertTag("swift")
        try await a.container.syncNow()
        let idle = try await events(of: a.container) {
            for _ in 0..<3 { try await a.container.syncNow() }
        }
        #expect(idle.isEmpty, "\(idle)")
    }
}
