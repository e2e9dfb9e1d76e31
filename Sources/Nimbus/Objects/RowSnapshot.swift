/// A row as read from or written to a store: its optimistic-locking version (`Z_OPT`) and
/// one value per property of the entity (to-many relationships hold `.null`).
struct RowSnapshot: Sendable {
    var version: Int64
    var values: [PropertyValue]
}
