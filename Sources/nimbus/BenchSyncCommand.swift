import ArgumentParser
import Foundation
import Nimbus
import NimbusCloud
import NimbusServer

extension NimbusCommand {
    /// `nimbus bench-sync`: the end-to-end sync rows of BENCHMARKS.md on this machine.
    struct BenchSync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench-sync",
            abstract: "Measure a device's initial upload and a new device's download against a loopback server, beside the server's own ingest.",
            discussion: """
                Everything runs in this process against a fresh embedded-SQLite server on 127.0.0.1, in \
                temporary folders that are removed afterwards. Prints a Markdown table.
                Example: nimbus bench-sync --objects 100000
                """)

        @Option(help: "Objects saved on the first device, uploaded, then downloaded into an empty one.")
        var objects: Int = 100_000

        @Option(help: "Records the server ingests directly for the comparison row (0 skips it).")
        var serverRecords: Int = 100_000

        @Option(help: "Single saves timed from one device's save to the other device's view context (0 skips it).")
        var samples: Int = 200

        @Flag(help: "Sync through a shared folder on the local disk instead of a server (upload, download and baseline rows only).")
        var folder = false

        func validate() throws {
            guard objects > 0, serverRecords >= 0, samples >= 0 else {
                throw ValidationError("--objects must be positive; --server-records and --samples can't be negative")
            }
        }

        func run() async throws {
            let progress = SyncBenchProgress()
            let rows = folder
                ? try await SyncBenchmark.runFolder(objects: objects) { step in progress.show(step) }
                : try await SyncBenchmark.run(objects: objects, serverRecords: serverRecords, samples: samples) { step in progress.show(step) }
            progress.clear()
            print("| scenario | result |")
            print("|---|---|")
            for row in rows { print("| \(row.scenario) | \(row.result) |") }
        }
    }
}

/// The progress line of `bench-sync`, on standard error when it is a terminal.
final class SyncBenchProgress: Sendable {
    let isTerminal = isatty(STDERR_FILENO) == 1

    func show(_ step: String) {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(step)".utf8))
    }

    func clear() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
