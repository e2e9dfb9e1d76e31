/// What a device's last look at the shared folder found.
///
/// For example:
/// ```swift
/// let report = transport.lastImport
/// if report.waiting > 0 { print("\(report.waiting) file(s) still arriving") }
/// ```
public struct FolderImportReport: Sendable, Hashable {
    /// Logs folded into the index.
    public var imported = 0
    /// Baselines folded into the index (a device that was behind them).
    public var baselines = 0
    /// Files still arriving (shorter than their header says, or their checksum does not
    /// match): read again at the next sync, never imported in part.
    public var waiting = 0
    /// Files that are not Nimbus folder files, or of a newer format: skipped.
    public var refused = 0
    /// Conflicted copies with the same content as a log already imported: skipped.
    public var duplicates = 0
    /// Conflicted copies with other valid content than their original: imported too (the
    /// merge makes two versions of a log their union; see decision 0113).
    public var divergentCopies = 0
    /// Logs removed by their writer's compaction while being read: their baseline covers them.
    public var vanished = 0

    /// Creates an empty report.
    public init() {}
}
