import Foundation
import GRDB

/// The first saves of unique-keyed records that were sent but not yet confirmed
/// (`ANIMBUSCLOUDFIRSTSAVE`), written before each request goes out.
///
/// A unique-keyed object's record name comes from its key, so when its save meets the
/// tombstone of a deleted record of that name, the device must tell two cases apart: another
/// device's record with the same key was deleted (this object is new: it takes the key's next
/// generation of record name), or this object's own earlier save reached the server, its
/// answer was lost (a dropped response, a killed process), and another device then deleted it
/// (deletion wins). Only a save sent before can be the second case; the tombstone's creator
/// (``NimbusWire/ItemError/serverRecord``) says whether it was.
enum FirstSaves {
    /// Records `names` as sent; returns those that had been sent before.
    static func markSent(_ names: [String], _ db: Database) throws -> Set<String> {
        var before = Set<String>()
        for name in names {
            try db.execute(sql: "INSERT OR IGNORE INTO ANIMBUSCLOUDFIRSTSAVE (ZRECORDNAME) VALUES (?)", arguments: [name])
            if db.changesCount == 0 { before.insert(name) }
        }
        return before
    }

    /// Forgets a name once the server confirmed its save or the object left that name.
    static func forget(_ name: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDFIRSTSAVE WHERE ZRECORDNAME = ?", arguments: [name])
    }
}
