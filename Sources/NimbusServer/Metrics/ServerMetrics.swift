import Foundation
import NIOConcurrencyHelpers
import Prometheus

/// The server's Prometheus metrics, in a registry of its own (so several servers in one
/// process, as in tests, keep separate counts).
///
/// Exposed at `GET /metrics`: `nimbus_http_requests_total{route,method,status}`,
/// `nimbus_http_request_duration_seconds{route}`, `nimbus_records_stored`,
/// `nimbus_record_bytes_stored`, `nimbus_connected_devices`, `nimbus_push_messages_total`.
package final class ServerMetrics: Sendable {
    package let registry = PrometheusCollectorRegistry()
    private let requestCounters = NIOLockedValueBox<[String: Counter]>([:])
    private let durations = NIOLockedValueBox<[String: DurationHistogram]>([:])
    package let recordsStored: Gauge
    package let bytesStored: Gauge
    package let connectedDevices: Gauge
    package let pushMessages: Counter

    private static let buckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    package init() {
        recordsStored = registry.makeGauge(descriptor: Self.metric("nimbus_records_stored", help: "Live records across all databases."))
        bytesStored = registry.makeGauge(descriptor: Self.metric("nimbus_record_bytes_stored", help: "Bytes of live records."))
        connectedDevices = registry.makeGauge(descriptor: Self.metric("nimbus_connected_devices", help: "Push WebSockets connected to this process."))
        pushMessages = registry.makeCounter(descriptor: Self.metric("nimbus_push_messages_total", help: "Push messages sent to devices."))
    }

    /// A metric's descriptor with its whole name (the registry joins non-empty parts only).
    static func metric(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// Counts one request and its duration.
    package func recordRequest(route: String, method: String, status: Int, duration: Duration) {
        let key = "\(route)|\(method)|\(status)"
        let counter = requestCounters.withLockedValue { counters in
            if let counter = counters[key] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.metric("nimbus_http_requests_total", help: "HTTP requests by route, method and status."),
                labels: [("route", route), ("method", method), ("status", String(status))])
            counters[key] = counter
            return counter
        }
        counter.increment()
        let histogram = durations.withLockedValue { durations in
            if let histogram = durations[route] { return histogram }
            let histogram = registry.makeDurationHistogram(
                descriptor: Self.metric("nimbus_http_request_duration_seconds", help: "HTTP request latency by route."),
                labels: [("route", route)], buckets: Self.buckets)
            durations[route] = histogram
            return histogram
        }
        histogram.record(duration)
    }

    /// The exposition text.
    package func render() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
