import Foundation
import Logging
import NIOConcurrencyHelpers
import NimbusWire

/// The Nimbus Console's state for one server: sessions, the last hour's telemetry, the
/// live-update streams and the templates.
///
/// For example:
/// ```swift
/// let console = Console(services: services)
/// ConsoleRoutes(console: console).register(on: router)
/// ```
package final class Console: Sendable {
    package let services: ServerServices
    package let sessions = ConsoleSessions()
    package let telemetry = ConsoleTelemetry()
    package let events = ConsoleEvents()
    let renderer: ConsoleRenderer
    private let pendingCounts = NIOLockedValueBox<ChangeEvent?>(nil)

    /// - Throws: A template that does not parse (a programming error caught by the tests).
    package init(services: ServerServices) throws {
        self.services = services
        self.renderer = try ConsoleRenderer()
        services.changeFeed.observe { [weak self] event in self?.changed(event) }
    }

    /// The storage's console facet, or `nil` on a backend without one (decision server-0020).
    var storage: (any ConsoleStorage)? { services.storage as? any ConsoleStorage }

    /// Announces a change to the open live-update streams, with fresh counts; changes that
    /// come while counts are being read are folded into one announcement.
    private func changed(_ event: ChangeEvent) {
        guard events.count > 0 else { return }
        let first = pendingCounts.withLockedValue { pending -> Bool in
            defer { pending = event }
            return pending == nil
        }
        guard first else { return }
        Task {
            try? await Task.sleep(for: .milliseconds(200))
            guard let latest = pendingCounts.withLockedValue({ pending -> ChangeEvent? in
                defer { pending = nil }
                return pending
            }) else { return }
            let counts = try? await storage?.consoleCounts()
            var data: [String: Any] = [
                "zone": "\(latest.container)/\(latest.zoneName)", "deleted": latest.zoneDeleted,
            ]
            if let counts {
                data["counts"] = [
                    "users": counts.users, "devices": counts.devices, "zones": counts.zones,
                    "records": counts.records, "bytes": counts.bytes, "push": Int64(services.changeFeed.connectedCount),
                ]
            }
            if let json = try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]) {
                events.broadcast(event: "change", json: String(decoding: json, as: UTF8.self))
            }
        }
    }
}
