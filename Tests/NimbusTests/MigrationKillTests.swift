import Crypto
import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// A child process runs the Notebook app's staged migration and is killed with SIGKILL at a
/// different step each round; the store must then be the old one byte for byte, or the fully
/// migrated one, and a new run must finish the job.
@Suite("Staged migration killed")
struct MigrationKillTests {
    @Test("SIGKILL at every step of a staged migration leaves the old store or the new one, never a mix")
    func killedWhileMigrating() throws {
        var generator = SystemRandomNumberGenerator()
        var outcomes: [String: Int] = [:]
        // The worker prints about 14 lines (ready, each stage's steps, migrated).
        for round in 0..<16 {
            let folder = try TemporaryDirectory()
            let url = folder.file("Notes.sqlite")
            try StagedMigrationTests.seed(url)
            let before = try StagedMigrationTests.hash(url)
            let process = Process()
            process.executableURL = DurabilityTests.workerURL
            process.arguments = ["migrate", url.path, XcodeModelFixtures.directory.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let reader = LineReader(pipe.fileHandleForReading)
            var seen: [String] = []
            while seen.count <= round, let line = reader.nextLine() { seen.append(line) }
            usleep(UInt32.random(in: 0...3_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            seen += reader.remainingLines()
            let finished = seen.contains("migrated")
            if try StagedMigrationTests.hash(url) == before {
                #expect(!finished, "round \(round): the worker said migrated but the store is the old one")
                outcomes["old", default: 0] += 1
                // The next run discards what the killed one left and migrates.
                #expect(try StagedMigrationTests.plan().migrateStore(at: url).count == 4, "round \(round)")
            } else {
                outcomes["new", default: 0] += 1
                #expect(try StagedMigrationTests.plan().migrateStore(at: url).isEmpty, "round \(round): a changed store must be the migrated one")
            }
            try StagedMigrationTests.checkVersion5(url)
        }
        #expect(outcomes["old", default: 0] > 0, "some kills should land before the swap: \(outcomes)")
    }
}
