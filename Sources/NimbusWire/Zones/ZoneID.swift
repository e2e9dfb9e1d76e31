/// Identifies a zone inside a database.
///
/// For example:
/// ```swift
/// let zone = ZoneID(zoneName: "com.apple.coredata.cloudkit.zone")
/// ```
public struct ZoneID: Codable, Hashable, Sendable {
    /// The zone's name, unique in its database.
    public var zoneName: String
    /// The name of the user who owns the zone; `nil` means the caller (or, in the public
    /// database, nobody).
    public var ownerName: String?

    /// Creates a zone id.
    /// - Parameters:
    ///   - zoneName: The zone's name.
    ///   - ownerName: The owner's user name, when it is not the caller.
    public init(zoneName: String, ownerName: String? = nil) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }
}
