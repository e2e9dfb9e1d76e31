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

    /// Creates a participant.
    /// - Parameters:
    ///   - userName: The participant's user name.
    ///   - permission: What the participant may do.
    public init(userName: String, permission: SharePermission) {
        self.userName = userName
        self.permission = permission
    }
}
