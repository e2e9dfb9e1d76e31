import Foundation
import Nimbus
@testable import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

/// A file service is no server: files arrive late, out of order, twice, in part, as
/// conflicted copies, vanish under compaction, and the folder itself may be gone a while.
@Suite("Folder sync under file-sync faults")
struct FolderFaultTests {
    /// Two devices, each with its own copy of the shared folder.
    static func pair(key: Data? = nil, otherKey: Data? = nil) throws -> (TemporaryDirectory, TemporaryDirectory, Device, Device) {
        let (folderA, folderB) = (try TemporaryDirectory(), try TemporaryDirectory())
        let model = try SyncModel.make()
        return (folderA, folderB, try FolderDevices.device(folderA.url, model: model, name: "a", key: key),
                try FolderDevices.device(folderB.url, model: model, name: "b", key: otherKey ?? key))
    }

    static func logs(_ root: URL) -> [String] { FolderCopier.files(root).filter { $0.contains("/logs/") } }

    @Test("a child's log that arrives before its parent's waits for it instead of losing the relationship")
    func outOfOrder() async throws {
        let (folderA, folderB, a, b) = try Self.pair()
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("parent", forKey: "title")
        }
        try await a.container.syncNow()
        try await a.edit { context in
            let attachment = try context.insertNewObject(forEntityName: "Attachment")
            attachment.setValue("child", forKey: "name")
            attachment.setValue(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first!, forKey: "post")
        }
        try await a.container.syncNow()
        let logs = Self.logs(folderA.url)
        #expect(logs.count == 2)
        // The second log first.
        try FolderCopier.copy(from: folderA.url, to: folderB.url) { $0 == logs[1] || !$0.contains("/logs/") }
        try await b.container.syncNow()
        // Parked, waiting for its post (not taken as deleted: decision 0111).
        #expect(try await b.snapshot("Attachment", key: "name").isEmpty)
        #expect(try b.container.syncStatus().reduce(0) { $0 + $1.parkedRecords } == 1)
        try FolderCopier.copy(from: folderA.url, to: folderB.url)
        try await b.container.syncNow()
        #expect(try await b.snapshot("Attachment", key: "name")["child"]?["post"] == "parent")
    }

    @Test("a log copied in part is waited for (not imported, not an error); whole, it imports")
    func truncated() async throws {
        let (folderA, folderB, a, b) = try Self.pair()
        try await a.insertTag("swift")
        try await a.container.syncNow()
        try FolderCopier.copy(from: folderA.url, to: folderB.url) { !$0.contains("/logs/") }
        let log = Self.logs(folderA.url)[0]
        for fraction in [0.0, 0.01, 0.5, 0.99] {
            try FolderCopier.copyPart(log, from: folderA.url, to: folderB.url, fraction: fraction)
            try await b.container.syncNow()
            #expect(try await b.snapshot("Tag", key: "name").isEmpty)
            #expect(b.folderTransport.lastImport.waiting == 1, "fraction \(fraction)")
        }
        try FolderCopier.copy(from: folderA.url, to: folderB.url)
        try await b.container.syncNow()
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["swift"])
        #expect(b.folderTransport.lastImport.waiting == 0)
    }

    @Test("logs delivered twice and as conflicted copies are imported once; a copy with other content is merged, not lost")
    func duplicatesAndConflictedCopies() async throws {
        let (folderA, folderB, a, b) = try Self.pair()
        try await a.insertTag("swift")
        try await a.container.syncNow()
        try FolderCopier.copy(from: folderA.url, to: folderB.url)
        let log = Self.logs(folderA.url)[0]
        let directory = folderB.url.appendingPathComponent((log as NSString).deletingLastPathComponent)
        let original = try Data(contentsOf: folderB.url.appendingPathComponent(log))
        let name = (log as NSString).lastPathComponent.replacingOccurrences(of: ".nlog", with: "")
        try original.write(to: directory.appendingPathComponent("\(name) (1).nlog"))
        try original.write(to: directory.appendingPathComponent("\(name).sync-conflict-20261128-101010-ABCDEFG.nlog"))
        try await b.container.syncNow()
        try await b.container.syncNow()
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["swift"])
        // A copy with other valid content (A reused the number after its index was restored
        // from a backup): a valid log of A, folded in too.
        var log1 = try JSONDecoder().decode(FolderLog.self, from: try SealedFile.open(original, expecting: .log, key: nil).body)
        let stamp = HLCStamp(time: log1.saves[0].fields.values.first!.stamp.time, device: log1.peer)
        log1.saves = [Record(recordName: UUID().uuidString, recordType: "CD_Post", fields: [
            "CD_entityName": Field(.string("Post"), stamp: stamp), "CD_title": Field(.string("divergent"), stamp: stamp)])]
        let other = try SealedFile.seal(try JSONEncoder().encode(log1), kind: .log, key: nil)
        try other.write(to: directory.appendingPathComponent("\(name) (2).nlog"))
        try await b.container.syncNow()
        let report = b.folderTransport.lastImport
        #expect(report.divergentCopies == 1)
        #expect(report.duplicates == 2)
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["swift"])
        #expect(try await b.posts().keys.sorted() == ["divergent"])
    }

    @Test("a missing folder fails the sync as a network error, keeps the edits, and sync resumes when it is back")
    func folderMissing() async throws {
        let (shared, devices) = try FolderDevices.onOneFolder(2)
        try await devices[0].container.syncNow()
        try await devices[0].insertTag("kept")
        let away = shared.url.deletingLastPathComponent().appendingPathComponent("away-\(UUID().uuidString)")
        try FileManager.default.moveItem(at: shared.url, to: away)
        await #expect { try await devices[0].container.syncNow() } throws: { ($0 as? CloudError)?.code == .network }
        #expect(!FileManager.default.fileExists(atPath: shared.url.path))
        try FileManager.default.moveItem(at: away, to: shared.url)
        try await devices[0].container.syncNow()
        try await devices[1].container.syncNow()
        #expect(try await devices[1].snapshot("Tag", key: "name").keys.sorted() == ["kept"])
    }

    @Test("encrypted logs: the same key converges; another key or none is a clear error and imports nothing")
    func encryption() async throws {
        let key = Data((0..<32).map { UInt8($0) })
        let wrong = Data((0..<32).map { UInt8(255 - $0) })
        let (folderA, folderB, a, b) = try Self.pair(key: key, otherKey: wrong)
        try await a.insertTag("secret")
        try await a.container.syncNow()
        let log = try Data(contentsOf: folderA.url.appendingPathComponent(Self.logs(folderA.url)[0]))
        #expect(!String(decoding: log, as: UTF8.self).contains("secret"))
        try FolderCopier.copy(from: folderA.url, to: folderB.url)
        await #expect { try await b.container.syncNow() } throws: { error in
            guard let error = error as? CloudError else { return false }
            return error.code == .invalidConfiguration && error.message.contains("does not decrypt")
        }
        #expect(try await b.snapshot("Tag", key: "name").isEmpty)
        // With the right key, a third device reads it.
        let c = try FolderDevices.device(folderB.url, model: try SyncModel.make(), name: "c", key: key)
        try await c.container.syncNow()
        #expect(try await c.snapshot("Tag", key: "name").keys.sorted() == ["secret"])
        // Without a key, plain reading refuses an encrypted log.
        let d = try FolderDevices.device(folderB.url, model: try SyncModel.make(), name: "d")
        await #expect { try await d.container.syncNow() } throws: { ($0 as? CloudError)?.message.contains("no key") ?? false }
    }

    @Test("compaction removes only logs every peer imported; a new device starts from the baseline")
    func baselineAndCompaction() async throws {
        let shared = try TemporaryDirectory()
        let model = try SyncModel.make()
        let a = try FolderDevices.device(shared.url, model: model, name: "a", compactionThreshold: 4)
        let b = try FolderDevices.device(shared.url, model: model, name: "b", compactionThreshold: 4)
        try await b.container.syncNow()
        for index in 0..<6 {
            try await a.insertTag("tag\(index)")
            try await a.container.syncNow()
        }
        let aPeer = try await a.folderTransport.account().deviceID
        let aLogs = { FolderCopier.files(shared.url).filter { $0.hasPrefix("peers/\(aPeer)/logs/") } }
        // B has imported none yet: nothing of A's may go.
        #expect(try await a.folderTransport.compact() == 0)
        #expect(aLogs().count == 6)
        try await b.container.syncNow()
        #expect(try await a.folderTransport.compact() == 6)
        #expect(aLogs().isEmpty)
        #expect(FileManager.default.fileExists(atPath: shared.url.appendingPathComponent("peers/\(aPeer)/baseline.nbase").path))
        // A new device starts from the baseline.
        let c = try FolderDevices.device(shared.url, model: model, name: "c")
        try await c.container.syncNow()
        #expect(c.folderTransport.lastImport.baselines >= 1)
        #expect(try await c.snapshot("Tag", key: "name").keys.sorted() == (0..<6).map { "tag\($0)" })
        // Edits go on after compaction.
        try await c.insertTag("after")
        try await c.container.syncNow()
        try await a.container.syncNow()
        #expect(try await a.snapshot("Tag", key: "name").count == 7)
    }
}

extension FolderFaultTests {
    @Test("a temporary file left by an interrupted write is never imported, and compaction removes it once stale")
    func staleTemporaryFile() async throws {
        let (shared, devices) = try FolderDevices.onOneFolder(1)
        try await devices[0].insertTag("swift")
        try await devices[0].container.syncNow()
        let peer = try await devices[0].folderTransport.account().deviceID
        let logs = shared.url.appendingPathComponent("peers/\(peer)/logs")
        let (fresh, stale) = (logs.appendingPathComponent(".tmp-1-000000000002.nlog"), logs.appendingPathComponent(".tmp-2-000000000003.nlog"))
        try Data("NIMBUS-FOLDER 1 log plain 99".utf8).write(to: fresh)
        try Data("NIMBUS-FOLDER 1 log plain 99".utf8).write(to: stale)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: stale.path)
        try await devices[0].container.syncNow()
        #expect(devices[0].folderTransport.lastImport.waiting == 0)
        try await devices[0].container.compactSharedFolders()
        #expect(FileManager.default.fileExists(atPath: fresh.path))
        #expect(!FileManager.default.fileExists(atPath: stale.path))
    }
}
