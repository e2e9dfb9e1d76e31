import Foundation

/// Something the mirroring engine did: setting up a store, importing, exporting; when it
/// started, how far it got, how it ended.
///
/// As `NSPersistentCloudKitContainer.Event`, a piece of work is posted when it starts
/// (``endDate`` nil) and again when it ends, both with the same ``identifier``, so a
/// "syncing…" indicator pairs them. A pass with nothing to send or apply posts nothing.
/// For example:
/// ```swift
/// var running: Set<UUID> = []
/// for await event in container.events {
///     if event.endDate == nil { running.insert(event.identifier) } else { running.remove(event.identifier) }
///     print(event.kind, event.phase, event.recordCount, event.succeeded, event.error?.message ?? "")
/// }
/// ```
public struct CloudEvent: Sendable, CustomStringConvertible {
    /// What the engine was doing.
    public enum Kind: String, Sendable {
        case setup, `import`, export
        /// The account's credentials: ended with a ``CloudError/Code-swift.struct/notAuthenticated``
        /// error when the server refused the token (expired or revoked). Nothing is lost:
        /// what is pending stays, and goes out once a new token is given (``CloudContainer/switchAccount(to:)``
        /// with the same account, or new ``CloudContainerOptions``).
        case account
        /// Sharing: a zone left the store (unshared, removed, left; ``CloudError/Code-swift.struct/zoneNotFound``),
        /// or the server refused edits in a read-only share and its version was put back
        /// (``CloudError/Code-swift.struct/permissionFailure``).
        case sharing
    }

    /// Where in the work the event is.
    public enum Phase: String, Sendable {
        case started, progress, ended
    }

    /// What the engine was doing.
    public var kind: Kind
    /// Started, progress or ended.
    public var phase: Phase
    /// The mirrored store's identifier.
    public var storeIdentifier: String
    /// Records sent or applied so far (or in all, when ended).
    public var recordCount: Int
    /// Objects removed (imports).
    public var deletedCount: Int = 0
    /// Conflicts resolved (imports).
    public var conflictCount: Int = 0
    /// Records this device could not apply and set aside (imports; see
    /// ``CloudContainer/quarantinedRecords()``).
    public var quarantinedCount: Int = 0
    /// When the work ended with an error, the error.
    public var error: CloudError?
    /// When it happened.
    public var date = Date()
    /// The piece of work: its started, progress and ended events share it.
    public var identifier = UUID()
    /// When the work started.
    public var startDate = Date()
    /// When the work ended (nil while it runs).
    public var endDate: Date?

    /// Whether the work ended without an error (false while it runs).
    public var succeeded: Bool { phase == .ended && error == nil }

    public var description: String {
        var text = "\(kind.rawValue) \(phase.rawValue)"
        if phase != .started { text += " records=\(recordCount)" }
        if deletedCount > 0 { text += " deleted=\(deletedCount)" }
        if conflictCount > 0 { text += " conflicts=\(conflictCount)" }
        if quarantinedCount > 0 { text += " quarantined=\(quarantinedCount)" }
        if let error { text += " error=\(error)" }
        return text
    }
}

extension CloudEvent {
    /// The notification posted (object: the container) for each event; `userInfo[CloudEvent.userInfoKey]` holds it.
    public static let notification = Notification.Name("NimbusCloudEventChanged")
    /// The `userInfo` key of the event in ``notification``.
    public static let userInfoKey = "event"
}
