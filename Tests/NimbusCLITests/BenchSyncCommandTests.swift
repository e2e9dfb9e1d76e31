import Foundation
import Testing

/// `nimbus bench-sync` (issue 29): the end-to-end sync rows, run small.
@Suite("nimbus bench-sync")
struct BenchSyncCommandTests {
    let cli = CLIRunner(directory: FileManager.default.temporaryDirectory)

    @Test("prints a table with the server's ingest, the upload, the download and propagation, each with what it exchanged")
    func printsTheRows() throws {
        let output = try cli.run(["bench-sync", "--objects", "300", "--server-records", "400", "--samples", "3"])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = output.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first == "| scenario | result |")
        #expect(rows.contains { $0.contains("`bench-server` ingest, 400 records") && $0.contains("records/s") }, "\(output.stdout)")
        #expect(rows.contains { $0.contains("initial upload of 300 objects") && $0.contains("(exported 300)") }, "\(output.stdout)")
        #expect(rows.contains { $0.contains("download of 300 objects") && $0.contains("(imported 300)") }, "\(output.stdout)")
        #expect(rows.contains { $0.contains("propagation") && $0.contains("p99") }, "\(output.stdout)")
    }

    @Test("a count that can't be run is bad input")
    func refusesBadCounts() throws {
        let output = try cli.run(["bench-sync", "--objects", "0"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("--objects"), "\(output.stderr)")
    }
}
