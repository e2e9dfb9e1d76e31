/// What a user may do in a shared zone.
///
/// A participant holds ``readOnly`` or ``readWrite``; ``none`` is only meaningful as a
/// share's public permission (no one but the named participants may accept).
///
/// For example:
/// ```swift
/// let bob = ShareParticipant(userName: "bob", permission: .readWrite)
/// ```
public enum SharePermission: String, Codable, Hashable, Sendable, CaseIterable {
    /// No access.
    case none
    /// Fetch changes and look up records.
    case readOnly
    /// Everything ``readOnly`` allows, plus saving and deleting records.
    case readWrite
}
