extension PostgresSchema {
    /// How many hash partitions `records` and `asset_refs` have (decision server-0026).
    static let zonePartitionCount = 16

    /// Migration 7: `records` (which are also the zone changes, by `seq`) and `asset_refs`
    /// become hash-partitioned by `zone_id`, the key a sharded PostgreSQL (Citus) would
    /// distribute them on (decision server-0026).
    ///
    /// An existing table is renamed aside with its indexes, the partitioned table is created
    /// under the old names, the rows are copied in the same transaction, and the old table is
    /// dropped: the upgrade keeps every row, and a failure anywhere rolls all of it back. On a
    /// fresh database the tables of migration 1 are empty and the copy is instant.
    static let zonePartitionStatements: [String] =
        partitionedTable(
            "records",
            columns: """
                zone_id BIGINT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, fields TEXT NOT NULL,
                change_tag TEXT NOT NULL, seq BIGINT NOT NULL, created_at BIGINT NOT NULL, created_device TEXT NOT NULL,
                modified_at BIGINT NOT NULL, modified_device TEXT NOT NULL, deleted_time BIGINT, deleted_device TEXT,
                size BIGINT NOT NULL, PRIMARY KEY(zone_id, name)
                """,
            columnNames: "zone_id, name, type, fields, change_tag, seq, created_at, created_device, modified_at, modified_device, deleted_time, deleted_device, size",
            indexes: [
                ("records_changes", "(zone_id, seq) WHERE seq > 0"),
                ("records_tombstones", "(modified_at) WHERE deleted_time IS NOT NULL"),
            ])
        + partitionedTable(
            "asset_refs",
            columns: "zone_id BIGINT NOT NULL, record_name TEXT NOT NULL, checksum TEXT NOT NULL, PRIMARY KEY(zone_id, record_name, checksum)",
            columnNames: "zone_id, record_name, checksum",
            indexes: [("asset_refs_checksum", "(checksum)")])

    /// The statements that replace table `name` (primary key `name_pkey`, the given indexes)
    /// by a hash-partitioned one with the same columns, rows and index names.
    private static func partitionedTable(
        _ name: String, columns: String, columnNames: String, indexes: [(name: String, definition: String)]
    ) -> [String] {
        var statements = [
            "ALTER TABLE \(name) RENAME TO \(name)_v6",
            "ALTER INDEX \(name)_pkey RENAME TO \(name)_v6_pkey",
        ]
        statements += indexes.map { "ALTER INDEX \($0.name) RENAME TO \($0.name)_v6" }
        statements.append("CREATE TABLE \(name)(\(columns)) PARTITION BY HASH (zone_id)")
        statements += (0..<zonePartitionCount).map { remainder in
            "CREATE TABLE \(name)_p\(remainder) PARTITION OF \(name) FOR VALUES WITH (MODULUS \(zonePartitionCount), REMAINDER \(remainder))"
        }
        statements += indexes.map { "CREATE INDEX \($0.name) ON \(name) \($0.definition)" }
        statements += [
            "INSERT INTO \(name)(\(columnNames)) SELECT \(columnNames) FROM \(name)_v6",
            "DROP TABLE \(name)_v6",
        ]
        return statements
    }
}
