import NimbusWire

/// One database of a container: its scope and the user who owns it.
///
/// The public database has owner ``publicOwner``; a private database belongs to its user.
package struct DatabaseKey: Hashable, Sendable, CustomStringConvertible {
    /// The owner id of the public database.
    package static let publicOwner: Int64 = 0

    package var container: String
    package var scope: DatabaseScope
    package var ownerID: Int64

    package init(container: String, scope: DatabaseScope, ownerID: Int64) {
        self.container = container
        self.scope = scope
        self.ownerID = ownerID
    }

    package var description: String { "\(container)/\(scope.rawValue)/\(ownerID)" }
}

/// One zone of one database.
package struct ZoneKey: Hashable, Sendable, CustomStringConvertible {
    package var database: DatabaseKey
    package var zoneName: String

    package init(database: DatabaseKey, zoneName: String) {
        self.database = database
        self.zoneName = zoneName
    }

    package var description: String { "\(database)/\(zoneName)" }
}
