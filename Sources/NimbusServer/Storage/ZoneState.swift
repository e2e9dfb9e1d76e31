/// Where a zone stands: its row id (one per incarnation: a zone deleted and created again
/// gets a new id), its change sequence and the oldest position tokens may still start from.
package struct ZoneState: Hashable, Sendable {
    package var rowID: Int64
    /// What change tokens and change tags name the zone's incarnation by: random for zones
    /// created since decision server-0018, the row id for older ones (whose tokens carry it).
    /// Row ids count every zone of the server, so they never leave it otherwise.
    package var incarnation: Int64
    package var zoneName: String
    package var seq: Int64
    package var purgedSeq: Int64
    package var databaseSeq: Int64
    package var deleted: Bool
    /// Whether the zone has a share, so that its changes also reach participants.
    package var shared: Bool
    /// The owner's user name, set when the zone is listed in someone else's shared database.
    package var ownerName: String?

    package init(
        rowID: Int64, incarnation: Int64, zoneName: String, seq: Int64, purgedSeq: Int64, databaseSeq: Int64, deleted: Bool = false,
        shared: Bool = false, ownerName: String? = nil
    ) {
        self.rowID = rowID
        self.incarnation = incarnation
        self.zoneName = zoneName
        self.seq = seq
        self.purgedSeq = purgedSeq
        self.databaseSeq = databaseSeq
        self.deleted = deleted
        self.shared = shared
        self.ownerName = ownerName
    }
}

/// A zone's entry in a database change listing.
package struct ZoneChange: Hashable, Sendable {
    package var zoneName: String
    package var deleted: Bool
    package var databaseSeq: Int64
    /// The owner's user name, for entries of a shared database.
    package var ownerName: String?

    package init(zoneName: String, deleted: Bool, databaseSeq: Int64, ownerName: String? = nil) {
        self.zoneName = zoneName
        self.deleted = deleted
        self.databaseSeq = databaseSeq
        self.ownerName = ownerName
    }
}
