import ArgumentParser
import Foundation
import NimbusServer

extension NimbusCommand {
    /// `nimbus bench-server`: a bounded loopback load test of the sync server.
    struct BenchServer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-server",
            abstract: "Measure modify and fetch throughput and push latency on a loopback server.",
            discussion: "Example: nimbus bench-server --records 100000 --postgres postgres://postgres@127.0.0.1:5432/bench")

        @Option(help: "Records to insert (in batches of 400).")
        var records: Int = 100_000

        @Option(help: "Concurrent writers.")
        var writers: Int = 4

        @Option(help: "Devices connected for the push measurement.")
        var devices: Int = 100

        @Option(name: .customLong("postgres"), help: "Benchmark the PostgreSQL backend at this URL instead of SQLite.")
        var postgresURL: String?

        func run() async throws {
            let report = try await ServerBenchmark.run(.init(records: records, writers: writers, devices: devices, postgresURL: postgresURL))
            print("""
                backend \(report.backend): modify \(Int(report.modifyRecordsPerSecond)) records/s \
                (\(report.records) in \(String(format: "%.2f", report.modifySeconds)) s), \
                fetch changes \(Int(report.fetchRecordsPerSecond)) records/s, \
                push p50 \(String(format: "%.1f", report.pushP50Milliseconds)) ms p99 \(String(format: "%.1f", report.pushP99Milliseconds)) ms \
                over \(report.pushSamples) deliveries to \(devices) devices
                """)
        }
    }
}
