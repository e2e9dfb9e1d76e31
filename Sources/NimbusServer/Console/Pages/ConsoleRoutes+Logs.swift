import Foundation
import Hummingbird
import NimbusWire

extension ConsoleRoutes {
    /// `GET /console/shares`.
    func shares(_ visit: Visit) async throws -> Response {
        let shares = try await visit.storage.consoleShares()
        return render(
            "shares", title: "Shares",
            values: [
                "shares": shares.map { share -> [String: Any] in
                    [
                        "owner": share.ownerName, "container": share.zone.container, "zone": share.zone.name,
                        "zoneID": share.zone.rowID, "publicPermission": share.publicPermission,
                        "participants": share.participants.map { ["name": $0.name, "permission": $0.permission, "state": $0.state] },
                    ]
                },
            ],
            visit: visit, section: "/console/shares")
    }

    /// `GET /console/requests?user=&status=&route=&min_ms=`: the request log and the transfer graph.
    func requests(_ visit: Visit) async throws -> Response {
        let query = FormData(body: visit.request.uri.query ?? "")
        func nonEmpty(_ name: String) -> String? { query[name].flatMap { $0.isEmpty ? nil : $0 } }
        var minimum: Double?
        if let text = nonEmpty("min_ms") {
            guard let value = Double(text), value >= 0 else { throw WireError(.invalidArguments, "“Slower than” takes a number of milliseconds.") }
            minimum = value
        }
        let filter = RequestLogFilter(user: nonEmpty("user"), status: nonEmpty("status"), route: nonEmpty("route"), minimumMilliseconds: minimum)
        let entries = console.telemetry.log(matching: filter, limit: 200)
        let now = console.services.clock.now()
        let firstMinute = now / 60_000 - 59
        let transfers = console.telemetry.transfers(now: now)
        let devices = Set(transfers.map(\.device)).sorted()
        let graphs = devices.map { device -> [String: Any] in
            let mine = transfers.filter { $0.device == device }
            var up = Array(repeating: 0.0, count: 60)
            var down = Array(repeating: 0.0, count: 60)
            for transfer in mine {
                let index = Int(transfer.minute - firstMinute)
                guard up.indices.contains(index) else { continue }
                up[index] += Double(transfer.bytesUp)
                down[index] += Double(transfer.bytesDown)
            }
            return [
                "device": device,
                "recordsUp": mine.reduce(0) { $0 + $1.recordsUp }, "recordsDown": mine.reduce(0) { $0 + $1.recordsDown },
                "bytesUp": ConsoleFormat.bytes(Int64(mine.reduce(0) { $0 + $1.bytesUp })),
                "bytesDown": ConsoleFormat.bytes(Int64(mine.reduce(0) { $0 + $1.bytesDown })),
                "svg": Sparkline.transfer(up: up, down: down, label: "Bytes per minute of \(device): uploads above the line, downloads below"),
            ]
        }
        return render(
            "requests", title: "Requests",
            values: [
                "user": filter.user ?? "", "status": filter.status ?? "", "route": filter.route ?? "",
                "minMs": query["min_ms"] ?? "", "shown": entries.count, "transfers": graphs,
                "entries": entries.map { entry -> [String: Any] in
                    [
                        "time": ConsoleFormat.time(entry.at), "user": entry.user ?? "–", "device": entry.device ?? "–",
                        "method": entry.method, "route": entry.route, "path": entry.path, "status": entry.status,
                        "ms": String(format: "%.1f", entry.milliseconds), "bytesUp": entry.bytesUp, "bytesDown": entry.bytesDown,
                        "recordsUp": entry.recordsUp, "recordsDown": entry.recordsDown,
                    ]
                },
            ],
            visit: visit, section: "/console/requests")
    }

    /// `GET /console/audit`.
    func audit(_ visit: Visit) async throws -> Response {
        let entries = try await visit.storage.auditLog(limit: 500)
        return render(
            "audit", title: "Audit log",
            values: [
                "entries": entries.map { entry -> [String: Any] in
                    ["time": ConsoleFormat.time(entry.at), "administrator": entry.administrator, "action": entry.action, "target": entry.target, "detail": entry.detail]
                },
            ],
            visit: visit, section: "/console/audit")
    }
}
