extension PostgresSchema {
    /// Migration 3: the index of zone changes no longer competes with the primary key for a
    /// batch's record lookup.
    ///
    /// The lookup of a modify batch (`PostgresStorage.records`) asks for up to 400 names of
    /// one zone. While the records table grows faster than autovacuum analyzes it, or when the
    /// zone is new to the statistics, the planner believes the zone holds a handful of rows
    /// and answers the lookup by scanning the whole zone through `records_seq(zone_id, seq)`,
    /// so batches slow down as the zone grows. The lookup now asks for each name with
    /// equality on both primary-key columns, an estimate of one row whatever the statistics;
    /// and the changes index is partial (`WHERE seq > 0`, true of every stored record), so a
    /// query that does not say `seq > 0` (the lookup) cannot use it, while the zone-changes
    /// query says so and keeps it. Measurements: `BENCHMARKS-server.md`.
    static let lookupStatements: [String] = [
        "CREATE INDEX records_changes ON records(zone_id, seq) WHERE seq > 0",
        "DROP INDEX records_seq",
    ]
}
