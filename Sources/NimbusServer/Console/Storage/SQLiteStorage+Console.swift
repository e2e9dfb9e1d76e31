import Foundation
import GRDB
import NimbusWire

extension SQLiteStorage: ConsoleStorage {
    package func setAdministrator(userID: Int64, _ isAdministrator: Bool) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET administrator = ? WHERE id = ?", arguments: [isAdministrator, userID])
        }
    }

    package func consoleUser(id: Int64) async throws -> ConsoleUser? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id]).map(Self.consoleUser)
        }
    }

    package func consoleUsers() async throws -> [ConsoleUser] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM users ORDER BY name").map(Self.consoleUser)
        }
    }

    package func consoleTokens(userID: Int64) async throws -> [ConsoleToken] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM tokens WHERE user_id = ? ORDER BY id DESC", arguments: [userID]).map(Self.consoleToken)
        }
    }

    package func consoleToken(id: Int64) async throws -> (token: ConsoleToken, userID: Int64)? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM tokens WHERE id = ?", arguments: [id]) else { return nil }
            return (try Self.consoleToken(row), try row.stored("user_id", in: "tokens"))
        }
    }

    package func consoleZone(rowID: Int64) async throws -> ConsoleZone? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT z.*, (SELECT COUNT(*) FROM records r WHERE r.zone_id = z.id AND r.deleted_time IS NULL) AS n,
                        (SELECT COALESCE(SUM(size), 0) FROM records r WHERE r.zone_id = z.id) AS bytes
                    FROM zones z WHERE z.id = ? AND z.deleted = 0 AND z.scope IN ('private', 'public')
                    """,
                arguments: [rowID]
            ).map(Self.consoleZone)
        }
    }

    package func revokeToken(id: Int64) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE tokens SET revoked = 1 WHERE id = ? AND revoked = 0", arguments: [id])
            return db.changesCount > 0
        }
    }

    package func setQuota(userID: Int64, quotaBytes: Int64?) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET quota_bytes = ? WHERE id = ?", arguments: [quotaBytes, userID])
        }
    }

    package func setDisabled(userID: Int64, _ disabled: Bool) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE users SET disabled = ? WHERE id = ?", arguments: [disabled, userID])
            if disabled { try db.execute(sql: "UPDATE tokens SET revoked = 1 WHERE user_id = ?", arguments: [userID]) }
        }
    }

    package func consoleZones(ownerID: Int64) async throws -> [ConsoleZone] {
        try await pool.read { db in
            let scope = ownerID == DatabaseKey.publicOwner ? "public" : "private"
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT z.*, (SELECT COUNT(*) FROM records r WHERE r.zone_id = z.id AND r.deleted_time IS NULL) AS n,
                        (SELECT COALESCE(SUM(size), 0) FROM records r WHERE r.zone_id = z.id) AS bytes
                    FROM zones z WHERE z.owner_id = ? AND z.scope = ? AND z.deleted = 0 ORDER BY z.container, z.name
                    """,
                arguments: [ownerID, scope]
            ).map(Self.consoleZone)
        }
    }

    package func recordPage(_ query: RecordQuery) async throws -> RecordPage {
        let (sql, arguments) = try Self.recordPageSQL(query)
        return try await pool.read { db in
            var records = try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.storedRecord)
            var next: RecordCursor?
            if records.count > query.limit {
                records.removeLast()
                next = records.last.map { RecordCursor(name: $0.recordName, modified: $0.modified.time) }
            }
            return RecordPage(records: records, next: next)
        }
    }

    /// The statement of one page of the record browser: a range of an index (the primary key
    /// for name orders, `records_modified` for time orders) from the cursor on, never a sort
    /// of the whole zone.
    /// - Throws: `invalidArguments` for a field name no JSON path can hold.
    static func recordPageSQL(_ query: RecordQuery) throws -> (String, StatementArguments) {
        var conditions = ["zone_id = ?", "deleted_time IS NULL"]
        var arguments: StatementArguments = [query.zoneRowID]
        if let type = query.recordType {
            conditions.append("type = ?")
            arguments += [type]
        }
        if let field = query.fieldName {
            conditions.append("CAST(json_extract(CAST(fields AS TEXT), ?) AS TEXT) IS ?")
            arguments += [try RecordFilter.jsonPath(field: field), query.fieldValue]
        }
        let order: String
        switch query.order {
        case .name:
            order = "name"
            if let after = query.after { conditions.append("name > ?"); arguments += [after.name] }
        case .nameDescending:
            order = "name DESC"
            if let after = query.after { conditions.append("name < ?"); arguments += [after.name] }
        case .modified:
            order = "modified_at, name"
            if let after = query.after { conditions.append("(modified_at, name) > (?, ?)"); arguments += [after.modified, after.name] }
        case .modifiedDescending:
            order = "modified_at DESC, name DESC"
            if let after = query.after { conditions.append("(modified_at, name) < (?, ?)"); arguments += [after.modified, after.name] }
        }
        arguments += [query.limit + 1]
        return ("SELECT * FROM records WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(order) LIMIT ?", arguments)
    }

    /// SQLite's plan for a page (tests check that no page sorts the whole zone).
    package func recordPagePlan(_ query: RecordQuery) async throws -> [String] {
        let (sql, arguments) = try Self.recordPageSQL(query)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] ?? "" }
        }
    }

    package func recordTypes(zoneRowID: Int64) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT type FROM records WHERE zone_id = ? AND deleted_time IS NULL ORDER BY type", arguments: [zoneRowID])
        }
    }

    package func schema(zoneRowID: Int64) async throws -> [SchemaEntry] {
        try await pool.read { db in
            let counts = try Row.fetchAll(
                db, sql: "SELECT type, COUNT(*) AS n FROM records WHERE zone_id = ? AND deleted_time IS NULL GROUP BY type ORDER BY type",
                arguments: [zoneRowID])
            let fields = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.type AS type, f.key AS field, COALESCE(json_extract(f.value, '$.value.type'), 'none') AS value_type
                    FROM records r, json_each(CAST(r.fields AS TEXT)) f
                    WHERE r.zone_id = ? AND r.deleted_time IS NULL
                    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
                    """,
                arguments: [zoneRowID])
            var byType: [String: [(String, [String])]] = [:]
            for row in fields {
                let type: String = try row.stored("type", in: "records")
                let field: String = try row.stored("field", in: "records")
                let valueType: String = try row.stored("value_type", in: "records")
                if let last = byType[type]?.last, last.0 == field {
                    byType[type]![byType[type]!.count - 1].1.append(valueType)
                } else {
                    byType[type, default: []].append((field, [valueType]))
                }
            }
            return try counts.map { row in
                let type: String = try row.stored("type", in: "records")
                return SchemaEntry(
                    recordType: type, records: try row.stored("n", in: "records"),
                    fields: (byType[type] ?? []).map { (name: $0.0, types: $0.1) })
            }
        }
    }

    package func consoleShares() async throws -> [ConsoleShare] {
        try await pool.read { db in
            let zones = try Row.fetchAll(
                db,
                sql: """
                    SELECT z.*, 0 AS n, 0 AS bytes, s.public_permission, u.name AS owner_name
                    FROM shares s JOIN zones z ON z.id = s.zone_id JOIN users u ON u.id = z.owner_id
                    WHERE z.deleted = 0 ORDER BY u.name, z.container, z.name
                    """)
            return try zones.map { row in
                let zone = try Self.consoleZone(row)
                let participants = try Row.fetchAll(
                    db,
                    sql: "SELECT u.name, p.permission, p.state FROM share_participants p JOIN users u ON u.id = p.user_id WHERE p.zone_id = ? ORDER BY u.name",
                    arguments: [zone.rowID]
                ).map { row in
                    (name: try row.stored("name", in: "users") as String, permission: try row.stored("permission", in: "share_participants") as String,
                     state: try row.stored("state", in: "share_participants") as String)   // invited, accepted, removed, left (server-0025)
                }
                return ConsoleShare(
                    zone: zone, ownerName: try row.stored("owner_name", in: "users"),
                    publicPermission: try row.stored("public_permission", in: "shares"), participants: participants)
            }
        }
    }

    package func consoleCounts() async throws -> ConsoleCounts {
        try await pool.read { db in
            func count(_ sql: String) throws -> Int64 { try Int64.fetchOne(db, sql: sql) ?? 0 }
            return ConsoleCounts(
                users: try count("SELECT COUNT(*) FROM users"),
                devices: try count("SELECT COUNT(*) FROM (SELECT DISTINCT user_id, device FROM tokens WHERE revoked = 0)"),
                zones: try count("SELECT COUNT(*) FROM zones WHERE deleted = 0"),
                records: try count("SELECT COUNT(*) FROM records WHERE deleted_time IS NULL"),
                bytes: try count("SELECT COALESCE(SUM(size), 0) FROM records WHERE deleted_time IS NULL"))
        }
    }

    package func appendAudit(_ entry: AuditEntry) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO console_audit(at, administrator, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                arguments: [entry.at, entry.administrator, entry.action, entry.target, entry.detail])
        }
    }

    package func auditLog(limit: Int) async throws -> [AuditEntry] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM console_audit ORDER BY id DESC LIMIT ?", arguments: [limit]).map { row in
                AuditEntry(
                    at: try row.stored("at", in: "console_audit"), administrator: try row.stored("administrator", in: "console_audit"),
                    action: try row.stored("action", in: "console_audit"), target: try row.stored("target", in: "console_audit"),
                    detail: try row.stored("detail", in: "console_audit"))
            }
        }
    }

    static func consoleUser(_ row: Row) throws -> ConsoleUser {
        ConsoleUser(
            id: try row.stored("id", in: "users"), name: try row.stored("name", in: "users"),
            usedBytes: try row.stored("used_bytes", in: "users"), quotaBytes: try row.storedIfPresent("quota_bytes", in: "users"),
            isAdministrator: try row.stored("administrator", in: "users"), isDisabled: try row.stored("disabled", in: "users"),
            createdAt: try row.stored("created_at", in: "users"))
    }

    static func consoleToken(_ row: Row) throws -> ConsoleToken {
        ConsoleToken(
            id: try row.stored("id", in: "tokens"), device: try row.stored("device", in: "tokens"),
            createdAt: try row.stored("created_at", in: "tokens"), expiresAt: try row.storedIfPresent("expires_at", in: "tokens"),
            revoked: try row.stored("revoked", in: "tokens"))
    }

    static func consoleZone(_ row: Row) throws -> ConsoleZone {
        ConsoleZone(
            rowID: try row.stored("id", in: "zones"), container: try row.stored("container", in: "zones"),
            scope: try row.stored("scope", in: "zones"), ownerID: try row.stored("owner_id", in: "zones"),
            name: try row.stored("name", in: "zones"), seq: try row.stored("seq", in: "zones"),
            records: try row.stored("n", in: "records"), bytes: try row.stored("bytes", in: "records"),
            shared: try row.stored("shared", in: "zones"))
    }
}

/// The record browser's field filter as a JSON path into the stored fields.
package enum RecordFilter {
    /// `$."<field>".value.value`.
    /// - Throws: `invalidArguments` for a field name holding `"` or `\`, which no path can quote.
    package static func jsonPath(field: String) throws -> String {
        if field.isEmpty || field.contains("\"") || field.contains("\\") {
            throw WireError(.invalidArguments, "The field name to filter by must be non-empty and hold no \" or \\.")
        }
        return "$.\"\(field)\".value.value"
    }
}
