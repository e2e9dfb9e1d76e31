import Foundation
import Testing

@Suite("Folder sync simulator: seeded file-service faults", .serialized)
struct FolderSimulationTests {
    /// Seeds run by default; `NIMBUS_FOLDER_SEEDS=1-40` runs more (reported in docs/fault-report.md).
    static var seeds: [UInt64] {
        guard let text = ProcessInfo.processInfo.environment["NIMBUS_FOLDER_SEEDS"] else { return [1, 2, 3] }
        let bounds = text.split(separator: "-").compactMap { UInt64($0) }
        return bounds.count == 2 ? Array(bounds[0]...bounds[1]) : bounds
    }

    @Test("every replica converges and keeps every surviving edit, whatever the file service does")
    func seeded() async throws {
        for seed in Self.seeds {
            let outcome = try await FolderSimulation.run(.init(seed: seed))
            let faults = outcome.faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("folder seed \(seed): \(outcome.objects) posts, \(outcome.failedSyncs) failed syncs, faults: \(faults)")
            #expect(outcome.problems.isEmpty, "seed \(seed): \(outcome.problems.joined(separator: "\n"))")
        }
    }
}
