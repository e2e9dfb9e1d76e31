import Foundation
import Nimbus
import NimbusWire

/// A property edited both here and on another device since they last agreed.
///
/// By default the edit with the later stamp wins on every device. A resolver set with
/// ``CloudContainer/setConflictResolver(forEntity:_:)`` may choose otherwise; its choice is
/// saved here as a new edit, which then wins everywhere.
public struct FieldConflict: Sendable {
    /// The entity of the object.
    public var entityName: String
    /// The object (in the store that imports).
    public var objectID: ManagedObjectID
    /// The property edited on both sides.
    public var property: String
    /// The value edited here (not yet on the server).
    public var localValue: PropertyValue
    /// The value from the server.
    public var remoteValue: PropertyValue
    /// When and where each edit was made.
    public var localStamp: HLCStamp
    /// When and where each edit was made.
    public var remoteStamp: HLCStamp

    /// Whether the remote edit wins by the default rule (the later stamp).
    public var remoteWinsByStamp: Bool { remoteStamp > localStamp }
}

/// What a conflict resolver decides for one property.
public enum FieldResolution: Sendable, Equatable {
    /// The later stamp decides (the default).
    case byStamp
    /// Keep the value edited here; it is sent as a new edit and wins everywhere.
    case keepLocal
    /// Take the server's value and drop the edit made here.
    case takeRemote
    /// Save this value instead (for example both edits combined); it wins everywhere.
    case merged(PropertyValue)
}

/// Decides conflicts of one entity's properties.
public typealias ConflictResolver = @Sendable (FieldConflict) -> FieldResolution

/// A stamp standing for "a new edit made by the importer"; replaced by a clock reading in
/// the import's transaction.
extension HLCStamp {
    static let freshEdit = HLCStamp(time: -1, device: "")
}
