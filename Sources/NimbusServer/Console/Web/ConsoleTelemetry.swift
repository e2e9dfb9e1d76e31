import Foundation
import NIOConcurrencyHelpers

/// The last hour of the server's traffic, in memory, for the console: per-minute counts for
/// the sparklines, the recent request log, and per-device transfer for the transfer graph.
///
/// For example:
/// ```swift
/// telemetry.record(RequestLogEntry(at: now, method: "GET", path: "/health", route: "/health", status: 200, milliseconds: 1))
/// telemetry.minutes(now: now).last?.requests  // 1
/// ```
package final class ConsoleTelemetry: Sendable {
    /// One minute of traffic.
    package struct Minute: Hashable, Sendable {
        package var minute: Int64
        package var requests = 0
        package var errors = 0
        package var pushConnections = 0
    }

    /// One device's transfer in one minute.
    package struct Transfer: Hashable, Sendable {
        package var device: String
        package var minute: Int64
        package var recordsUp = 0
        package var recordsDown = 0
        package var bytesUp = 0
        package var bytesDown = 0
    }

    /// A device as the traffic shows it.
    package struct DeviceActivity: Hashable, Sendable {
        package var lastSeen: Int64
        package var requests = 0
        package var errors = 0
    }

    private struct State {
        var minutes: [Int64: Minute] = [:]
        var log: [RequestLogEntry] = []
        var transfers: [String: Transfer] = [:]
        var devices: [String: DeviceActivity] = [:]
    }

    /// Entries kept in the request log.
    package static let logCapacity = 5000
    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Counts a finished request.
    package func record(_ entry: RequestLogEntry, pushConnections: Int = 0) {
        let minute = entry.at / 60_000
        state.withLockedValue { state in
            var bucket = state.minutes[minute] ?? Minute(minute: minute)
            bucket.requests += 1
            if entry.status >= 400 { bucket.errors += 1 }
            bucket.pushConnections = max(bucket.pushConnections, pushConnections)
            state.minutes[minute] = bucket
            if state.minutes.count > 90 { state.minutes = state.minutes.filter { $0.key > minute - 60 } }
            state.log.append(entry)
            if state.log.count > Self.logCapacity { state.log.removeFirst(state.log.count - Self.logCapacity) }
            if let device = entry.device, let user = entry.user {
                let deviceKey = user + "/" + device
                let key = "\(deviceKey)|\(minute)"
                var transfer = state.transfers[key] ?? Transfer(device: deviceKey, minute: minute)
                transfer.recordsUp += entry.recordsUp
                transfer.recordsDown += entry.recordsDown
                transfer.bytesUp += entry.bytesUp
                transfer.bytesDown += entry.bytesDown
                state.transfers[key] = transfer
                if state.transfers.count > 20_000 { state.transfers = state.transfers.filter { $0.value.minute > minute - 60 } }
                var activity = state.devices[deviceKey] ?? DeviceActivity(lastSeen: entry.at)
                activity.lastSeen = max(activity.lastSeen, entry.at)
                activity.requests += 1
                if entry.status >= 400 { activity.errors += 1 }
                state.devices[deviceKey] = activity
            }
        }
    }

    /// Notes the number of push connections without a request.
    package func sample(pushConnections: Int, now: Int64) {
        let minute = now / 60_000
        state.withLockedValue { state in
            var bucket = state.minutes[minute] ?? Minute(minute: minute)
            bucket.pushConnections = max(bucket.pushConnections, pushConnections)
            state.minutes[minute] = bucket
        }
    }

    /// The last 60 minutes, oldest first, with empty minutes filled in.
    package func minutes(now: Int64) -> [Minute] {
        let current = now / 60_000
        let known = state.withLockedValue { $0.minutes }
        return (current - 59...current).map { known[$0] ?? Minute(minute: $0) }
    }

    /// The request log, newest first, filtered.
    package func log(matching filter: RequestLogFilter, limit: Int) -> [RequestLogEntry] {
        let all = state.withLockedValue { $0.log }
        var found: [RequestLogEntry] = []
        for entry in all.reversed() where filter.matches(entry) {
            found.append(entry)
            if found.count == limit { break }
        }
        return found
    }

    /// Transfers of the last hour, per device and minute.
    package func transfers(now: Int64) -> [Transfer] {
        let first = now / 60_000 - 59
        return state.withLockedValue { $0.transfers.values.filter { $0.minute >= first } }
            .sorted { ($0.device, $0.minute) < ($1.device, $1.minute) }
    }

    /// Activity of one device (`user/device`), or `nil` when it sent nothing since start-up.
    package func activity(user: String, device: String) -> DeviceActivity? {
        state.withLockedValue { $0.devices[user + "/" + device] }
    }
}

/// One request in the console's log.
package struct RequestLogEntry: Hashable, Sendable {
    package var at: Int64
    package var method: String
    package var path: String
    package var route: String
    package var status: Int
    package var milliseconds: Double
    package var user: String?
    package var device: String?
    package var bytesUp = 0
    package var bytesDown = 0
    package var recordsUp = 0
    package var recordsDown = 0

    package init(at: Int64, method: String, path: String, route: String, status: Int, milliseconds: Double, user: String? = nil, device: String? = nil) {
        self.at = at
        self.method = method
        self.path = path
        self.route = route
        self.status = status
        self.milliseconds = milliseconds
        self.user = user
        self.device = device
    }
}

/// The request log's filters; empty ones match everything.
package struct RequestLogFilter: Hashable, Sendable {
    package var user: String?
    /// `2xx`, `4xx`, `5xx` or an exact status.
    package var status: String?
    /// A substring of the route template.
    package var route: String?
    /// Only requests at least this slow.
    package var minimumMilliseconds: Double?

    package init(user: String? = nil, status: String? = nil, route: String? = nil, minimumMilliseconds: Double? = nil) {
        self.user = user
        self.status = status
        self.route = route
        self.minimumMilliseconds = minimumMilliseconds
    }

    package func matches(_ entry: RequestLogEntry) -> Bool {
        if let user, entry.user != user { return false }
        if let route, !entry.route.contains(route) { return false }
        if let minimumMilliseconds, entry.milliseconds < minimumMilliseconds { return false }
        if let status {
            if status.count == 3, status.hasSuffix("xx"), let digit = status.first?.wholeNumberValue {
                if entry.status / 100 != digit { return false }
            } else if Int(status) != entry.status {
                return false
            }
        }
        return true
    }
}
