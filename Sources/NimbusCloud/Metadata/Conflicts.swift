import Foundation
import GRDB

/// Records that had a property edited here and elsewhere (resolved by stamp or resolver),
/// for ``CloudContainer/syncState(for:)``.
enum Conflicts {
    static func record(_ recordName: String, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO ANIMBUSCLOUDCONFLICT (ZRECORDNAME, ZCOUNT, ZTIME) VALUES (?, 1, ?)
            ON CONFLICT (ZRECORDNAME) DO UPDATE SET ZCOUNT = ZCOUNT + 1, ZTIME = excluded.ZTIME
            """, arguments: [recordName, Date().timeIntervalSince1970])
    }
}
