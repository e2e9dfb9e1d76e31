import Crypto
import Foundation
import GRDB
import NimbusWire

extension FolderTransport {
    /// What the last look at the folder found (files still arriving, conflicted copies…).
    public var lastImport: FolderImportReport { session.lastImport.withLock { $0 } }

    /// Imports what the folder holds that the index has not seen: baselines this device is
    /// behind, then every log not imported yet, in one index transaction. Files still
    /// arriving wait for a later look; a file sealed with another key fails the whole import
    /// (nothing is imported) with a clear error.
    @discardableResult
    func importFolder() async throws -> FolderImportReport {
        try requireFolder()
        let index = try index()
        _ = try key()   // a bad key fails here, before anything is read
        let layout = self.layout, folder = self.folder
        let report = try await index.queue.write { db in
            try FolderImport(index: index, layout: layout, key: try SealedFile.key(of: folder)).run(db)
        }
        session.lastImport.withLock { $0 = report }
        try await writeReceipt()
        // Compaction when the device's own logs pile up (again only after as many more: peers
        // that have not imported them yet keep them, and the baseline is not rewritten each time).
        let own = layout.logFiles(index.peerID).count
        // The count at the last compaction is kept in the index, so that a process per sync
        // (the CLI) does not rewrite the baseline at every sync while a peer holds logs back.
        let threshold = folder.compactionThreshold
        if own >= threshold {
            let due = try await index.queue.write { db -> Bool in
                let last = Int(try FolderIndex.integer("compactedAt", db))
                guard last == 0 || own >= last + max(threshold / 2, 1) || own < last else { return false }
                try FolderIndex.setInteger("compactedAt", Int64(own), db)
                return true
            }
            if due { try await compact() }
        }
        return report
    }

    /// Writes this device's receipt (what it has imported, per peer) when it changed.
    func writeReceipt() async throws {
        let index = try index()
        let consumed = try await index.queue.read { db in try index.consumed(db) }
        let url = layout.receipts(index.peerID)
        if let data = FolderLayout.read(url), let receipt = try? JSONDecoder().decode(FolderReceipt.self, from: data),
           receipt.consumed == consumed { return }
        let receipt = FolderReceipt(peer: index.peerID, consumed: consumed, time: Int64(Date().timeIntervalSince1970 * 1000))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try SealedFile.write(try encoder.encode(receipt), to: url)
    }
}

/// One look at the folder, inside the index's write transaction.
struct FolderImport {
    let index: FolderIndex
    let layout: FolderLayout
    let key: SymmetricKey?
    /// Reads a file; `nil` when it is gone (tests make files vanish mid-import with it).
    var read: (URL) -> Data? = FolderLayout.read

    func run(_ db: Database) throws -> FolderImportReport {
        var report = FolderImportReport()
        let peers = layout.peerIDs()
        for peer in peers { try importBaseline(of: peer, &report, db) }
        for peer in peers {
            for (name, url) in layout.logFiles(peer) {
                if try index.isCovered(peer: peer, seq: name.seq, db) { continue }
                if !name.isCopy, try index.isImported(peer: peer, seq: name.seq, db) { continue }
                guard let data = read(url) else {
                    report.vanished += 1
                    continue
                }
                guard let opened = try open(data, kind: .log, file: url, &report) else { continue }
                let (body, header) = opened
                guard let log = try? JSONDecoder().decode(FolderLog.self, from: body), log.peer == peer, log.seq == name.seq else {
                    report.refused += 1
                    continue
                }
                if try index.isImported(peer: peer, seq: name.seq, checksum: header.checksum, db) {
                    report.duplicates += 1
                    continue
                }
                if name.isCopy, try index.isImported(peer: peer, seq: name.seq, db) { report.divergentCopies += 1 }
                try index.fold(log, checksum: header.checksum, db)
                report.imported += 1
            }
        }
        return report
    }

    /// Opens a file: `nil` (counted) when it is still arriving or not ours; throws when it
    /// is sealed with another key.
    func open(_ data: Data, kind: SealedFile.Kind, file: URL, _ report: inout FolderImportReport) throws -> (Data, SealedFile.Header)? {
        do throws(SealedFile.Problem) {
            let opened = try SealedFile.open(data, expecting: kind, key: key)
            return (opened.body, opened.header)
        } catch {
            switch error {
            case .incomplete: report.waiting += 1
            case .unreadable: report.refused += 1
            case .wrongKey(let why):
                throw CloudError(.invalidConfiguration, "\(file.path) can't be read: \(why). Nothing was imported; "
                    + "give every device of the folder the same encryption key")
            }
            return nil
        }
    }

    /// Folds a peer's baseline in when this device is behind it (it covers logs this device
    /// has not imported, which may be compacted away).
    func importBaseline(of peer: String, _ report: inout FolderImportReport, _ db: Database) throws {
        let url = layout.baseline(peer)
        guard let data = FolderLayout.read(url), let header = try? SealedFile.header(of: data) else { return }
        let seenKey = "baseline." + peer
        if try String.fetchOne(db, sql: "SELECT VALUE FROM FSTATE WHERE KEY = ?", arguments: [seenKey]) == header.checksum { return }
        guard let body = try open(data, kind: .baseline, file: url, &report)?.0 else { return }
        guard let baseline = try? JSONDecoder().decode(FolderBaseline.self, from: body), baseline.peer == peer else {
            report.refused += 1
            return
        }
        let consumed = try index.consumed(db)
        if baseline.covered.contains(where: { (consumed[$0.key] ?? 0) < $0.value }) {
            for (zone, stamp) in baseline.erased ?? [:] { _ = try index.erase(zone: zone, before: stamp, db) }
            for entry in baseline.records {
                var record = entry.record
                if let erased = try FolderIndex.erasedBefore(zone: record.zone, db) {
                    record.fields = record.fields.filter { $0.value.stamp >= erased }
                    if let deletion = record.deletion, deletion < erased { record.deletion = nil }
                    if record.fields.isEmpty && record.deletion == nil { continue }
                }
                if let outcome = FolderMerge.join(record, onto: try index.record(zone: record.zone, name: record.name, db)) {
                    try FolderIndex.put(outcome, db)
                }
            }
            for (coveredPeer, seq) in baseline.covered { try index.cover(peer: coveredPeer, upTo: seq, db) }
            report.baselines += 1
        }
        try db.execute(sql: "INSERT OR REPLACE INTO FSTATE (KEY, VALUE) VALUES (?, ?)", arguments: [seenKey, header.checksum])
    }
}
