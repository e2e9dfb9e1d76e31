import Foundation
import Logging
import Nimbus
import NimbusCloud
import NimbusServer

/// The end-to-end sync rows of BENCHMARKS.md ("Mirroring"), as `nimbus bench-sync` runs them:
/// the server's own ingest (`bench-server`'s modify and fetch rows), a device's initial upload,
/// a download into an empty device, and single-save propagation between two devices that
/// sync by themselves, all in one process against one loopback server.
enum SyncBenchmark {
    struct Row: Sendable {
        var scenario: String
        var result: String
    }

    static func run(objects: Int, serverRecords: Int, samples: Int, progress: @escaping @Sendable (String) -> Void) async throws -> [Row] {
        var rows: [Row] = []
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-bench-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        if serverRecords > 0 {
            progress("server ingest of \(serverRecords) records…")
            let report = try await ServerBenchmark.run(.init(records: serverRecords, devices: 0, pushWrites: 0))
            rows.append(Row(scenario: "`bench-server` ingest, \(serverRecords) records (4 writers, batches of 400)",
                            result: "\(report.modifyRecordsPerSecond.formatted0) records/s (\(String(format: "%.2f", report.modifySeconds)) s); fetch changes \(report.fetchRecordsPerSecond.formatted0) records/s"))
        }

        let server = try await LoopbackServer.start(folder: root.appendingPathComponent("server"))
        defer { server.stop() }

        // A save of `objects` on A, its initial upload, then a download into an empty B.
        let a = try await device("a", root: root, server: server, container: "bulk", automatic: false)
        progress("saving \(objects) objects on device A…")
        let saveSeconds = try insert(objects, into: a, prefix: "post")
        rows.append(Row(scenario: "save of \(objects) new objects on A (mirroring on)", result: "\(String(format: "%.2f", saveSeconds)) s"))
        let uploadWatch = watch(a, verb: "uploading", total: objects, progress: progress)
        let uploadStart = ContinuousClock.now
        let uploaded = try await a.syncNow()
        let upload = (ContinuousClock.now - uploadStart).seconds
        uploadWatch.cancel()
        rows.append(Row(scenario: "initial upload of \(objects) objects (`syncNow` on A)",
                        result: "\(String(format: "%.2f", upload)) s, **\((Double(objects) / upload).formatted0) records/s** (exported \(uploaded.exported))"))
        let memoryBefore = peakMemoryMB()
        let b = try await device("b", root: root, server: server, container: "bulk", automatic: false)
        let downloadWatch = watch(b, verb: "downloading", total: objects, progress: progress)
        let downloadStart = ContinuousClock.now
        let downloaded = try await b.syncNow()
        let download = (ContinuousClock.now - downloadStart).seconds
        downloadWatch.cancel()
        rows.append(Row(scenario: "download of \(objects) objects into an empty device (`syncNow` on B)",
                        result: "\(String(format: "%.2f", download)) s, **\((Double(objects) / download).formatted0) records/s** (imported \(downloaded.imported)); peak RSS \(Int(peakMemoryMB())) MB (\(Int(memoryBefore)) MB before)"))
        await a.stopSyncing()
        await b.stopSyncing()

        if samples > 0 {
            let la = try await device("la", root: root, server: server, container: "latency", automatic: true)
            let lb = try await device("lb", root: root, server: server, container: "latency", automatic: true)
            try await Task.sleep(for: .seconds(1))
            var latencies: [Double] = []
            for sample in 0..<samples {
                progress("propagation: sample \(sample + 1) of \(samples)…")
                let title = "latency \(sample)"
                let context = la.newBackgroundContext()
                let start = ContinuousClock.now
                try await context.perform {
                    let post = try context.insertNewObject(forEntityName: "Post")
                    post.setValue(title, forKey: "title")
                    try context.save()
                }
                var query = FetchRequest<ManagedObject>(entityName: "Post")
                query.predicate = try QueryPredicate(format: "title == %@", argumentArray: [title])
                let request = query
                let view = lb.viewContext
                while try await view.perform({ try view.count(for: request) }) == 0 {
                    if ContinuousClock.now - start > .seconds(30) { throw CloudError(.network, "sample \(sample) did not arrive in 30 s") }
                    try await Task.sleep(for: .milliseconds(1))
                }
                latencies.append((ContinuousClock.now - start).seconds * 1000)
            }
            await la.stopSyncing()
            await lb.stopSyncing()
            latencies.sort()
            let p50 = latencies[latencies.count / 2], p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
            rows.append(Row(scenario: "propagation, save on A → B's view context, automatic sync and push (\(samples) saves)",
                            result: "p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms"))
        }
        return rows
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
            }
        }
    }

    static func device(_ name: String, root: URL, server: LoopbackServer, container: String, automatic: Bool) async throws -> CloudContainer {
        let folder = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cloud = CloudContainer(name: name, managedObjectModel: try model())
        cloud.automaticallySyncs = automatic
        var description = PersistentStoreDescription(url: folder.appendingPathComponent("Store.sqlite"))
        description.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: container,
                                                                  token: try await server.token(device: name))
        cloud.persistentStoreDescriptions = [description]
        try await cloud.loadPersistentStores()
        return cloud
    }

    /// Saves `count` new posts in one save; returns the save's seconds.
    static func insert(_ count: Int, into container: PersistentContainer, prefix: String) throws -> Double {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            for index in 0..<count {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue("\(prefix) \(index)", forKey: "title")
                post.setValue(Int64(index), forKey: "views")
            }
            let start = ContinuousClock.now
            try context.save()
            return (ContinuousClock.now - start).seconds
        }
    }

    /// Shows the engine's progress events as "verb: N of total records".
    static func watch(_ cloud: CloudContainer, verb: String, total: Int, progress: @escaping @Sendable (String) -> Void) -> Task<Void, Never> {
        let events = cloud.events
        progress("\(verb) \(total) records…")
        return Task {
            for await event in events where event.phase == .progress {
                progress("\(verb): \(event.recordCount) of \(total) records")
            }
        }
    }

    /// The process's peak resident memory (VmHWM), in MB.
    static func peakMemoryMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes / 1024
    }
}

/// An embedded-SQLite sync server on a free loopback port, in this process, with one user.
struct LoopbackServer: Sendable {
    let url: URL
    let configuration: ServerConfiguration
    let task: Task<Void, any Error>

    static func start(folder: URL) async throws -> LoopbackServer {
        var configuration = ServerConfiguration(dataDirectory: folder.path, port: 0)
        configuration.rateLimitPerSecond = 1_000_000
        configuration.rateLimitBurst = 1_000_000
        configuration.defaultQuotaBytes = 1 << 40
        _ = try await ServerAdministration.addUser(configuration: configuration, name: "bench", quotaBytes: nil)
        var logger = Logger(label: "nimbus.bench-sync")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try await NimbusServerApp.make(configuration: configuration, logger: logger) { continuation.yield($0) }
        let task = Task { try await app.runWithoutSignals() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            task.cancel()
            throw CLIError("the benchmark's server did not start", status: .internalError)
        }
        return LoopbackServer(url: URL(string: "http://127.0.0.1:\(port)")!, configuration: configuration, task: task)
    }

    func token(device: String) async throws -> String {
        try await ServerAdministration.createToken(configuration: configuration, userName: "bench", device: device, expiresInSeconds: nil)
    }

    func stop() { task.cancel() }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension Double {
    var formatted0: String { String(Int(self.rounded())) }
}
