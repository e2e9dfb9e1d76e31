import NIOConcurrencyHelpers

/// The newest position of each zone this process knows of: from the changes it committed
/// and the ones it heard on the change channel (its own and other processes').
///
/// A replica is read for a zone only when it has replayed at least this far (decision
/// server-0027), so a device pushed about a change never fetches a page without it from a
/// replica, and a lookup after a write through this process sees the write. The table is
/// bounded: when full it is emptied, which only sends reads to the primary until positions
/// are heard again.
///
/// For example:
/// ```swift
/// positions.note(event)
/// let known = positions.position(of: zone)   // (incarnation, seq, deleted)
/// ```
final class ZonePositions: Sendable {
    /// What this process knows of a zone.
    struct Position: Hashable, Sendable {
        var incarnation: Int64
        var seq: Int64
        var deleted: Bool
    }

    /// How many zones the table holds before it is emptied.
    let capacity: Int
    private let positions = NIOLockedValueBox<[ZoneKey: Position]>([:])

    init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    /// Notes a committed change. Events of participants' shared databases are left out: they
    /// name no zone a read asks for (reads name the owner's zone).
    func note(_ event: ChangeEvent) {
        guard event.scope != .shared else { return }
        note(
            ZoneKey(database: event.database, zoneName: event.zoneName),
            Position(incarnation: event.zoneIncarnation, seq: event.zoneSeq, deleted: event.zoneDeleted))
    }

    /// Notes a zone's position: the higher sequence of one incarnation wins; another
    /// incarnation (the zone deleted and created again) replaces it.
    func note(_ zone: ZoneKey, _ position: Position) {
        positions.withLockedValue { positions in
            if let known = positions[zone], known.incarnation == position.incarnation {
                positions[zone] = Position(
                    incarnation: known.incarnation, seq: max(known.seq, position.seq), deleted: known.deleted || position.deleted)
                return
            }
            if positions.count >= capacity { positions.removeAll(keepingCapacity: true) }
            positions[zone] = position
        }
    }

    /// What this process knows of a zone, or `nil`.
    func position(of zone: ZoneKey) -> Position? {
        positions.withLockedValue { $0[zone] }
    }
}
