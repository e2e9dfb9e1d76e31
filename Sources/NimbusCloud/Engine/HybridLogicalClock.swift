import Foundation
import GRDB

/// A hybrid logical clock: readings are milliseconds since 1970 shifted left 16 bits plus a
/// logical counter, never going backwards and always past every stamp seen from elsewhere.
///
/// The clock's last reading is kept in the store file and advanced in the transaction that
/// uses it, so stamps stay ordered across launches.
struct HybridLogicalClock: Sendable, Equatable {
    /// The last reading.
    private(set) var last: Int64

    init(last: Int64 = 0) { self.last = last }

    /// A reading for an event that happened at `date` on this device.
    mutating func tick(at date: Date) -> Int64 {
        last = max(last + 1, Self.reading(at: date))
        return last
    }

    /// The reading of `date` with a zero counter.
    static func reading(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) << 16
    }

    /// Brings a clock that ran ahead back to `date` (its future readings were wrong: the
    /// edits stamped with them are stamped again).
    mutating func reset(to date: Date) {
        last = Self.reading(at: date)
    }

    /// Takes a stamp seen from another device into account.
    mutating func observe(_ time: Int64) {
        if time > last { last = time }
    }

    static func load(_ db: Database) throws -> HybridLogicalClock {
        HybridLogicalClock(last: Int64.fromDatabaseValue(try SyncMetadata.state(.clock, db)) ?? 0)
    }

    func save(_ db: Database) throws {
        try SyncMetadata.setState(.clock, last, db)
    }
}
