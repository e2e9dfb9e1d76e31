import Foundation
import Hummingbird
import NIOCore

extension ConsoleRoutes {
    /// `GET /console`: counts and the last hour's sparklines.
    func overview(_ visit: Visit) async throws -> Response {
        let now = console.services.clock.now()
        let counts = try await visit.storage.consoleCounts()
        let push = console.services.changeFeed.connectedCount
        console.telemetry.sample(pushConnections: push, now: now)
        let minutes = console.telemetry.minutes(now: now)
        let rows: [[String: Any]] = [
            ["key": "users", "label": "Users", "value": counts.users],
            ["key": "devices", "label": "Devices (live tokens)", "value": counts.devices],
            ["key": "zones", "label": "Zones", "value": counts.zones],
            ["key": "records", "label": "Records", "value": counts.records],
            ["key": "bytes", "label": "Storage", "value": ConsoleFormat.bytes(counts.bytes)],
            ["key": "push", "label": "Push connections", "value": push],
        ]
        let series: [(String, [Double], (Double) -> String)] = [
            ("Requests per second", minutes.map { Double($0.requests) / 60 }, { String(format: "%.2f", $0) }),
            ("Errors per minute", minutes.map { Double($0.errors) }, { String(Int($0)) }),
            ("Push connections", minutes.map { Double($0.pushConnections) }, { String(Int($0)) }),
        ]
        let sparklines = series.map { label, values, format -> [String: Any] in
            [
                "label": label, "latest": format(values.last ?? 0), "peak": format(values.max() ?? 0),
                "svg": Sparkline.line(values, label: "\(label), one point per minute for the last hour"),
            ]
        }
        return render("overview", title: "Overview", values: ["counts": rows, "sparklines": sparklines], visit: visit, section: "/console")
    }

    /// `GET /console/events`: the live-update stream (server-sent events).
    func liveEvents(_ visit: Visit) async throws -> Response {
        let events = console.events
        let stream = events.subscribe()
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", HTTPFields.Element.Name("X-Accel-Buffering")!: "no"],
            body: ResponseBody { writer in
                defer { events.cancel(stream) }
                for await message in stream.messages {
                    try await writer.write(ByteBuffer(string: message))
                }
                try await writer.finish(nil)
            })
    }
}
