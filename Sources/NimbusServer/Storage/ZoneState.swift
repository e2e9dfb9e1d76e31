/// Where a zone stands: its row id (one per incarnation: a zone deleted and created again
/// gets a new id), its change sequence and the oldest position tokens may still start from.
package struct ZoneState: Hashable, Sendable {
    package var rowID: Int64
    package var zoneName: String
    package var seq: Int64
    package var purgedSeq: Int64
    package var databaseSeq: Int64
    package var deleted: Bool

    package init(rowID: Int64, zoneName: String, seq: Int64, purgedSeq: Int64, databaseSeq: Int64, deleted: Bool = false) {
        self.rowID = rowID
        self.zoneName = zoneName
        self.seq = seq
        self.purgedSeq = purgedSeq
        self.databaseSeq = databaseSeq
        self.deleted = deleted
    }
}

/// A zone's entry in a database change listing.
package struct ZoneChange: Hashable, Sendable {
    package var zoneName: String
    package var deleted: Bool
    package var databaseSeq: Int64

    package init(zoneName: String, deleted: Bool, databaseSeq: Int64) {
        self.zoneName = zoneName
        self.deleted = deleted
        self.databaseSeq = databaseSeq
    }
}
