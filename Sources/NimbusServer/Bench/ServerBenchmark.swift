import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NimbusWire

/// A bounded load test of a real server on a loopback port: modify throughput, fetch-changes
/// throughput and push latency, as `nimbus bench-server` runs it.
///
/// For example:
/// ```swift
/// let report = try await ServerBenchmark.run(.init(records: 100_000, postgresURL: nil))
/// print(report.markdown)
/// ```
public enum ServerBenchmark {
    /// What to measure.
    public struct Options: Sendable {
        /// Records to insert.
        public var records: Int
        /// Records per modify batch.
        public var batchSize: Int
        /// Concurrent writers.
        public var writers: Int
        /// Devices connected for the push measurement.
        public var devices: Int
        /// Writes whose push latency is measured.
        public var pushWrites: Int
        /// A PostgreSQL URL, or `nil` for embedded SQLite.
        public var postgresURL: String?

        /// Creates options.
        public init(records: Int = 100_000, batchSize: Int = 400, writers: Int = 4, devices: Int = 100, pushWrites: Int = 50, postgresURL: String? = nil) {
            self.records = records
            self.batchSize = batchSize
            self.writers = writers
            self.devices = devices
            self.pushWrites = pushWrites
            self.postgresURL = postgresURL
        }
    }

    /// The measurements of one run.
    public struct Report: Sendable {
        public var backend: String
        public var records: Int
        public var modifySeconds: Double
        public var fetchSeconds: Double
        public var pushSamples: Int
        public var pushP50Milliseconds: Double
        public var pushP99Milliseconds: Double

        public var modifyRecordsPerSecond: Double { Double(records) / modifySeconds }
        public var fetchRecordsPerSecond: Double { Double(records) / fetchSeconds }
    }

    /// Runs the benchmark against a fresh server in this process.
    public static func run(_ options: Options) async throws -> Report {
        let directory = NSTemporaryDirectory() + "nimbus-bench-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration(dataDirectory: directory, port: 0)
        configuration.postgresURL = options.postgresURL
        configuration.rateLimitPerSecond = 1_000_000
        configuration.rateLimitBurst = 1_000_000
        configuration.defaultQuotaBytes = 1 << 40
        configuration.maintenanceIntervalSeconds = 0
        var logger = Logger(label: "nimbus.bench")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try await NimbusServerApp.make(configuration: configuration, logger: logger) { continuation.yield($0) }
        let serverTask = Task { try await app.runWithoutSignals() }
        defer { serverTask.cancel() }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else { throw WireError(.internalError, "the server did not start") }
        let base = "http://127.0.0.1:\(port)"
        let admin = AccountAdmin(storage: app.services.storage)
        _ = try await admin.addUser(name: "bench")
        let token = try await admin.createToken(userName: "bench", device: "writer")
        let zonePath = "/v1/containers/bench/databases/private/zones/z"
        _ = try await send(base + zonePath, method: .PUT, token: token, body: nil)

        // Modify throughput. The request bodies are encoded (with Foundation's JSONEncoder, as a
        // client would) before the clock starts, so that the load generator's encoding, which
        // runs in this process on the same cores, is not counted as server time.
        let batches = (options.records + options.batchSize - 1) / options.batchSize
        let bodies = try (0..<batches).map { batch in
            let first = batch * options.batchSize
            let last = min(first + options.batchSize, options.records)
            let records = (first..<last).map { index in
                Record(recordName: "r\(index)", recordType: "Item", fields: [
                    "title": Field(.string("item \(index)"), stamp: HLCStamp(time: Int64(index), device: "writer")),
                    "count": Field(.int64(Int64(index)), stamp: HLCStamp(time: Int64(index), device: "writer")),
                ])
            }
            return try JSONEncoder().encode(ModifyRecordsRequest(saves: records, savePolicy: .changedKeys))
        }
        let modifyStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<options.writers {
                group.addTask {
                    for batch in stride(from: writer, to: batches, by: options.writers) {
                        let status = try await send(base + zonePath + "/records/modify", method: .POST, token: token, body: bodies[batch]).status
                        guard status == 200 else { throw WireError(.internalError, "modify answered \(status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let modifySeconds = seconds(ContinuousClock.now - modifyStart)

        // Fetch-changes throughput.
        let fetchStart = ContinuousClock.now
        var since: ChangeToken?
        var fetched = 0
        var more = true
        while more {
            let body = try JSONEncoder().encode(FetchZoneChangesRequest(since: since, limit: FetchZoneChangesRequest.maximumLimit))
            let reply = try await send(base + zonePath + "/changes", method: .POST, token: token, body: body)
            let page = try JSONDecoder().decode(FetchZoneChangesResponse.self, from: reply.body)
            fetched += page.records.count
            since = page.changeToken
            more = page.moreComing
        }
        let fetchSeconds = seconds(ContinuousClock.now - fetchStart)
        guard fetched == options.records else { throw WireError(.internalError, "fetched \(fetched) of \(options.records) records") }

        // Push latency with connected devices.
        var listeners: [PushListener] = []
        for device in 0..<options.devices {
            let deviceToken = try await admin.createToken(userName: "bench", device: "device-\(device)")
            listeners.append(PushListener.connect(url: "ws://127.0.0.1:\(port)/v1/containers/bench/databases/private/push", token: deviceToken))
        }
        defer { listeners.forEach { $0.close() } }
        for listener in listeners { _ = await listener.next(within: .seconds(30)) }
        var samples: [Double] = []
        for write in 0..<options.pushWrites {
            let record = Record(recordName: "push-\(write)", recordType: "Item", fields: ["n": Field(.int64(Int64(write)), stamp: HLCStamp(time: 1, device: "writer"))])
            let body = try JSONEncoder().encode(ModifyRecordsRequest(saves: [record], savePolicy: .changedKeys))
            let start = ContinuousClock.now
            _ = try await send(base + zonePath + "/records/modify", method: .POST, token: token, body: body)
            for listener in listeners {
                if let arrival = await listener.nextArrival(within: .seconds(10)) {
                    samples.append(seconds(arrival.instant - start) * 1000)
                }
            }
        }
        samples.sort()
        func percentile(_ p: Double) -> Double {
            samples.isEmpty ? .nan : samples[min(samples.count - 1, Int((Double(samples.count) * p).rounded(.down)))]
        }
        return Report(
            backend: app.services.storage.backendName, records: options.records, modifySeconds: modifySeconds,
            fetchSeconds: fetchSeconds, pushSamples: samples.count, pushP50Milliseconds: percentile(0.5),
            pushP99Milliseconds: percentile(0.99))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func send(_ url: String, method: HTTPMethod, token: String, body: Data?) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), Data(buffer: buffer))
    }
}
