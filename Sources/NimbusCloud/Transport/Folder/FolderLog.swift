import Foundation
import NimbusWire

/// One transaction log: what one device's modify batch changed in one zone, written once
/// under the device's own peer folder and never changed (`peers/<peer>/logs/<seq>.nlog`).
///
/// Logs hold the edits as sent (each field with its stamp, each deletion with its stamp),
/// not merged state: every device folds them into its own index with the same rules (the
/// later stamp wins per field, a deletion wins over saves), so the order in which logs
/// arrive does not change the outcome.
struct FolderLog: Codable, Sendable, Equatable {
    /// The payload's format (1).
    var format = 1
    /// The device that wrote it.
    var peer: String
    /// Its number in the device's sequence, from 1.
    var seq: Int64
    /// The zone it changes.
    var zone: String
    /// When it was written (milliseconds since 1970, the writer's clock): the records'
    /// `created` / `modified` stamps.
    var time: Int64
    /// Records saved (fields as sent, stamped).
    var saves: [Record]
    /// Records deleted.
    var deletions: [RecordDeletion]
    /// When set, the zone's content was erased at this stamp: every value and tombstone
    /// stamped before it goes, on every device, whenever the log arrives (see decision 0116).
    var erase: HLCStamp? = nil

    /// The stamp the log's saves count for (`created` / `modified` of the records).
    var at: RecordStamp { RecordStamp(time: time, device: peer) }
}

/// A file's place in the folder: `peers/<peer>/logs/<seq>.nlog`, or a conflicted copy of
/// one that a file service made (`000000000004 (1).nlog`,
/// `000000000004.sync-conflict-20261128-101010-ABCDEFG.nlog`, `000000000004.nlog.conflict`).
struct LogName: Sendable, Hashable, Comparable {
    var seq: Int64
    /// Whether the name is not the one its writer gave (a copy made by the file service).
    var isCopy: Bool

    static let digits = 12

    /// The name a device gives its log `seq`.
    static func fileName(_ seq: Int64) -> String {
        let number = String(seq)
        return String(repeating: "0", count: max(0, digits - number.count)) + number + ".nlog"
    }

    /// Reads a file name; `nil` for what is not a log (temporary files, other files).
    init?(_ name: String) {
        guard !name.hasPrefix("."), name.contains(".nlog") else { return nil }
        let prefix = name.prefix(Self.digits)
        guard prefix.count == Self.digits, prefix.allSatisfy(\.isASCII), prefix.allSatisfy(\.isNumber),
              let seq = Int64(prefix), seq > 0 else { return nil }
        self.seq = seq
        isCopy = name != Self.fileName(seq)
    }

    static func < (lhs: LogName, rhs: LogName) -> Bool { (lhs.seq, lhs.isCopy ? 1 : 0) < (rhs.seq, rhs.isCopy ? 1 : 0) }
}
