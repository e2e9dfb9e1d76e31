import Crypto
import Foundation
import GRDB
import struct NimbusWire.Record
import NimbusWire

/// A modify batch against a folder: decided on the device's index as the server decides
/// (a save over a tombstone fails `unknownItem`, a deletion of a record never known fails
/// `unknownItem`, an atomic batch fails whole), then what passes is written as the device's
/// next log and folded into the index, in the index's transaction.
struct FolderModify {
    let index: FolderIndex
    let layout: FolderLayout
    let key: SymmetricKey?

    func run(_ request: ModifyRecordsRequest, zone: String, _ db: Database) throws -> ModifyRecordsResponse {
        var results: [RecordResult] = []
        var saves: [Record] = []
        var deletions: [RecordDeletion] = []
        for save in request.saves {
            let current = try index.record(zone: zone, name: save.recordName, db)
            if let current, current.isTombstone {
                results.append(RecordResult(recordName: save.recordName, status: .failed, error: ItemError(
                    name: save.recordName, code: .unknownItem,
                    message: "The record '\(save.recordName)' was deleted; a deletion wins over later saves.",
                    serverRecord: current.wire(indexID: index.indexID))))
            } else if request.savePolicy == .ifServerRecordUnchanged, let current, save.changeTag != current.wire(indexID: index.indexID).changeTag {
                results.append(RecordResult(recordName: save.recordName, status: .failed, error: ItemError(
                    name: save.recordName, code: .serverRecordChanged, message: "The record has changed since it was read.",
                    serverRecord: current.wire(indexID: index.indexID))))
            } else {
                saves.append(save)
                results.append(RecordResult(recordName: save.recordName, status: .saved))
            }
        }
        for deletion in request.deletions {
            guard let current = try index.record(zone: zone, name: deletion.recordName, db) else {
                results.append(RecordResult(recordName: deletion.recordName, status: .failed, error: ItemError(
                    name: deletion.recordName, code: .unknownItem, message: "No record named '\(deletion.recordName)' is known here.")))
                continue
            }
            if !current.isTombstone { deletions.append(deletion) }
            results.append(RecordResult(recordName: deletion.recordName, status: .deleted))
        }
        if request.atomic && results.contains(where: { $0.status == .failed }) {
            results = results.map { result in
                result.status == .failed ? result : RecordResult(recordName: result.recordName, status: .failed, error: ItemError(
                    name: result.recordName, code: .batchRequestFailed, message: "Not applied: another item of this atomic batch failed."))
            }
            saves = []
            deletions = []
        }
        if !saves.isEmpty || !deletions.isEmpty {
            try append(FolderLog(peer: index.peerID, seq: try nextSeq(db), zone: zone, time: Int64(Date().timeIntervalSince1970 * 1000),
                                 saves: saves, deletions: deletions), db)
        }
        for (position, result) in results.enumerated() where result.status == .saved {
            results[position].record = try index.record(zone: zone, name: result.recordName, db)?.wire(indexID: index.indexID)
        }
        let token = ChangeToken(rawValue: "f1.\(try FolderTransport.tokenPrefix(index, db)).\(try FolderIndex.changeSeq(db))")
        let failures = results.compactMap(\.error)
        return ModifyRecordsResponse(results: results, changeToken: token,
                                     error: failures.isEmpty ? nil : WireError(.partialFailure, "\(failures.count) item(s) failed", itemErrors: failures))
    }

    /// Writes `log` as the device's next log file and folds it into the index.
    func append(_ log: FolderLog, _ db: Database) throws {
        let file = try SealedFile.seal(try JSONEncoder().encode(log), kind: .log, key: key)
        try SealedFile.write(file, to: layout.log(index.peerID, log.seq))
        try index.fold(log, checksum: try SealedFile.header(of: file).checksum, db)
        try FolderIndex.setInteger("ownSeq", log.seq, db)
    }

    /// The device's next log number: after its last one, and after every log of its own in
    /// the folder (a log written just before a crash, whose fold was lost, is never overwritten).
    func nextSeq(_ db: Database) throws -> Int64 {
        let stored = try FolderIndex.integer("ownSeq", db)
        let inFolder = layout.logFiles(index.peerID).map(\.name.seq).max() ?? 0
        return max(stored, inFolder) + 1
    }
}
