/// Where a participant stands in a share, as a `CKShare.Participant`'s acceptance status.
///
/// A participant the owner names starts ``invited``: they reach nothing until they accept
/// with the share's URL. Accepting makes them ``accepted``; the owner taking them off the
/// share makes them ``removed``, and leaving makes them ``left`` (they may accept again while
/// the owner keeps them on the share).
///
/// For example:
/// ```swift
/// let waiting = share.participants.filter { $0.state == .invited }.map(\.userName)
/// ```
public enum ParticipantState: String, Codable, Hashable, Sendable, CaseIterable {
    /// Named by the owner; no access until they accept.
    case invited
    /// Accepted the share: the zone is in their shared database.
    case accepted
    /// Taken off the share by its owner.
    case removed
    /// Left the share.
    case left
}
