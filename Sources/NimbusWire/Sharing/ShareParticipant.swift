/// A user a zone is shared with, and what they may do in it.
///
/// For example:
/// ```swift
/// let participants = [ShareParticipant(userName: "bob", permission: .readOnly)]
/// ```
public struct ShareParticipant: Codable, Hashable, Sendable {
    /// The participant's user name on this server.
    public var userName: String
    /// ``SharePermission/readOnly`` or ``SharePermission/readWrite``.
    public var permission: SharePermission
    /// Where the participant stands; set in the server's answers, ignored in requests.
    public var state: ParticipantState?
    /// Whether the participant joined through the share's public permission ("anyone with
    /// the link") rather than being named by the owner.
    public var isPublic: Bool?

    /// Creates a participant.
    /// - Parameters:
    ///   - userName: The participant's user name.
    ///   - permission: What the participant may do.
    ///   - state: Where the participant stands (answers only).
    ///   - isPublic: Whether they joined through the public permission (answers only).
    public init(userName: String, permission: SharePermission, state: ParticipantState? = nil, isPublic: Bool? = nil) {
        self.userName = userName
        self.permission = permission
        self.state = state
        self.isPublic = isPublic
    }
}
