import Foundation
import Logging
import Nimbus
import NimbusCloud
import NimbusServer
import NimbusWire

// Sync benchmarks (issue 11), against an in-process `nimbus serve` (SQLite) on loopback:
// initial upload and download of N objects, a save with mirroring on and off, and propagation
// latency from a save on A to the object in B's viewContext with automatic sync and push.
//
//     swift run -c release NimbusSyncBenchmarkReport [--objects 100000] [--save 50000] [--samples 50]
//     swift run -c release NimbusSyncBenchmarkReport --import 1000000   # only: import of N small records, peak memory

func argument(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The process's peak resident memory (VmHWM), in MB.
func peakMemoryMB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
    return kilobytes / 1024
}

func model() throws -> ManagedObjectModel {
    try ManagedObjectModel {
        EntityDescription("Post") {
            AttributeDescription("title", .string)
            AttributeDescription("views", .integer64, defaultValue: 0)
        }
    }
}

func folder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-syncbench-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func cloud(_ name: String, server: URL, token: String, container: String, automatic: Bool) async throws -> CloudContainer {
    let cloud = CloudContainer(name: name, managedObjectModel: try model())
    cloud.automaticallySyncs = automatic
    var description = PersistentStoreDescription(url: try folder(name).appendingPathComponent("Store.sqlite"))
    description.cloudContainerOptions = CloudContainerOptions(serverURL: server, containerIdentifier: container, token: token)
    cloud.persistentStoreDescriptions = [description]
    try await cloud.loadPersistentStores()
    return cloud
}

func insert(_ count: Int, into container: PersistentContainer, prefix: String) throws -> Duration {
    let context = container.newBackgroundContext()
    return try context.performAndWait {
        for index in 0..<count {
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("\(prefix) \(index)", forKey: "title")
            post.setValue(Int64(index), forKey: "views")
        }
        let start = ContinuousClock.now
        try context.save()
        return ContinuousClock.now - start
    }
}

@main
struct SyncBenchmarkReport {
    static func main() async throws {
        let objects = argument("--objects", 100_000)
        let saveCount = argument("--save", 50_000)
        let samples = argument("--samples", 50)

        // The server, in this process.
        let data = try folder("server").path
        var configuration = ServerConfiguration(dataDirectory: data, port: 0)
        configuration.rateLimitPerSecond = 1_000_000
        configuration.rateLimitBurst = 1_000_000
        configuration.defaultQuotaBytes = 1 << 40
        _ = try await ServerAdministration.addUser(configuration: configuration, name: "bench", quotaBytes: nil)
        var tokens: [String] = []
        for index in 0..<4 {
            tokens.append(try await ServerAdministration.createToken(configuration: configuration, userName: "bench", device: "d\(index)", expiresInSeconds: nil))
        }
        var logger = Logger(label: "nimbus.syncbench")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try await NimbusServerApp.make(configuration: configuration, logger: logger) { continuation.yield($0) }
        let serverTask = Task { try await app.runWithoutSignals() }
        defer { serverTask.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { fatalError("the server did not start") }
        let server = URL(string: "http://127.0.0.1:\(port)")!
        print("| scenario | result |")
        print("|---|---|")
        let importCount = argument("--import", 0)
        if importCount > 0 {
            try await importScenario(importCount, server: server, tokens: tokens)
            return
        }

        // A save of `saveCount` new objects, mirroring off (history on, as mirroring needs) and on.
        do {
            let plain = PersistentContainer(name: "plain", managedObjectModel: try model())
            var description = PersistentStoreDescription(url: try folder("plain").appendingPathComponent("Store.sqlite"))
            description.persistentHistoryTracking = true
            plain.persistentStoreDescriptions = [description]
            try await plain.loadPersistentStores()
            let off = try insert(saveCount, into: plain, prefix: "plain")
            let mirrored = try await cloud("mirrored", server: server, token: tokens[3], container: "save", automatic: false)
            let on = try insert(saveCount, into: mirrored, prefix: "mirrored")
            print("| save of \(saveCount) new objects, mirroring off (history on) | \(String(format: "%.3f", seconds(off))) s |")
            print("| save of \(saveCount) new objects, mirroring on | \(String(format: "%.3f", seconds(on))) s (×\(String(format: "%.2f", seconds(on) / seconds(off)))) |")
        }

        // Initial upload from A, then download into an empty B.
        do {
            let a = try await cloud("a", server: server, token: tokens[0], container: "bulk", automatic: false)
            _ = try insert(objects, into: a, prefix: "post")
            let uploadStart = ContinuousClock.now
            let uploaded = try await a.syncNow()
            let upload = seconds(ContinuousClock.now - uploadStart)
            print("| initial upload of \(objects) objects (syncNow on A) | \(String(format: "%.2f", upload)) s, \(Int(Double(objects) / upload)) records/s (exported \(uploaded.exported)) |")
            let memoryBefore = peakMemoryMB()
            let b = try await cloud("b", server: server, token: tokens[1], container: "bulk", automatic: false)
            let downloadStart = ContinuousClock.now
            let downloaded = try await b.syncNow()
            let download = seconds(ContinuousClock.now - downloadStart)
            print("| download of \(objects) objects into an empty B (syncNow) | \(String(format: "%.2f", download)) s, \(Int(Double(objects) / download)) records/s (imported \(downloaded.imported)); peak RSS \(Int(peakMemoryMB())) MB (before: \(Int(memoryBefore)) MB) |")
        }

        // Propagation: save on A → visible in B's viewContext, both syncing by themselves (push).
        do {
            let a = try await cloud("la", server: server, token: tokens[0], container: "latency", automatic: true)
            let b = try await cloud("lb", server: server, token: tokens[1], container: "latency", automatic: true)
            try await Task.sleep(for: .seconds(1))
            var latencies: [Double] = []
            for sample in 0..<samples {
                let title = "latency \(sample)"
                let context = a.newBackgroundContext()
                let start = ContinuousClock.now
                try await context.perform {
                    let post = try context.insertNewObject(forEntityName: "Post")
                    post.setValue(title, forKey: "title")
                    try context.save()
                }
                var query = FetchRequest<ManagedObject>(entityName: "Post")
                query.predicate = try QueryPredicate(format: "title == %@", argumentArray: [title])
                let request = query
                let view = b.viewContext
                while true {
                    let found = try await view.perform { try view.count(for: request) } > 0
                    if found { break }
                    if ContinuousClock.now - start > .seconds(30) { throw CloudError(.network, "sample \(sample) did not arrive in 30 s") }
                    try await Task.sleep(for: .milliseconds(1))
                }
                latencies.append(seconds(ContinuousClock.now - start) * 1000)
            }
            latencies.sort()
            let p50 = latencies[latencies.count / 2], p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
            print("| propagation A save → B viewContext, automatic sync + push (\(samples) samples) | p50 \(String(format: "%.1f", p50)) ms, p99 \(String(format: "%.1f", p99)) ms |")
        }
    }
}

/// Import of `count` small records into an empty device: the records are written to the
/// server directly (copies of one record a device exported), then B syncs; peak RSS is
/// measured from just before B opens (VmHWM reset through /proc/self/clear_refs).
func importScenario(_ count: Int, server: URL, tokens: [String]) async throws {
    let a = try await cloud("ia", server: server, token: tokens[0], container: "import", automatic: false)
    _ = try insert(1, into: a, prefix: "template")
    _ = try await a.syncNow()
    let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server, containerIdentifier: "import", token: tokens[0]))
    let zone = ZoneID(zoneName: CloudContainerOptions.defaultZoneName)
    guard let template = try await transport.fetchChanges(FetchZoneChangesRequest(), in: zone).records.first else { fatalError("no template record") }
    let titleKey = template.fields.keys.first { $0.hasSuffix("title") }!, viewsKey = template.fields.keys.first { $0.hasSuffix("views") }!
    let stamp = template.fields[titleKey]!.stamp
    let uploadStart = ContinuousClock.now
    let batches = (count + 399) / 400
    try await withThrowingTaskGroup(of: Void.self) { group in
        for writer in 0..<4 {
            group.addTask {
                for batch in stride(from: writer, to: batches, by: 4) {
                    let records = (batch * 400..<min(count, batch * 400 + 400)).map { index -> Record in
                        var record = template
                        record.recordName = UUID().uuidString
                        record.changeTag = nil
                        record.fields[titleKey] = Field(.string("small \(index)"), stamp: stamp)
                        record.fields[viewsKey] = Field(.int64(Int64(index)), stamp: stamp)
                        return record
                    }
                    _ = try await transport.modify(ModifyRecordsRequest(saves: records, savePolicy: .changedKeys), in: zone)
                }
            }
        }
        try await group.waitForAll()
    }
    let upload = seconds(ContinuousClock.now - uploadStart)
    print("| server ingest of \(count) records (4 writers, batches of 400; setup) | \(String(format: "%.1f", upload)) s |")
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let before = peakMemoryMB()
    let b = try await cloud("ib", server: server, token: tokens[1], container: "import", automatic: false)
    let start = ContinuousClock.now
    let summary = try await b.syncNow()
    let elapsed = seconds(ContinuousClock.now - start)
    print("| import of \(count + 1) small records into an empty device (syncNow) | \(String(format: "%.1f", elapsed)) s, \(Int(Double(count) / elapsed)) records/s (imported \(summary.imported)); peak RSS \(Int(peakMemoryMB())) MB (\(Int(before)) MB before B opened) |")
}
