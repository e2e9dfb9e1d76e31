import PostgresNIO

/// Rows read completely while the connection was leased, so the connection can go back to
/// the pool before the caller looks at them. Offers the same `decode` and iteration as
/// `PostgresRowSequence`.
struct CollectedRows: AsyncSequence, Sendable {
    typealias Element = PostgresRow

    let rows: [PostgresRow]

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: IndexingIterator<[PostgresRow]>
        mutating func next() async throws -> PostgresRow? { base.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: rows.makeIterator()) }

    func collect() -> [PostgresRow] { rows }

    func decode<Column: PostgresDecodable & SendableMetatype>(_ type: Column.Type) -> AsyncThrowingMapSequence<CollectedRows, Column> {
        map { try $0.decode(Column.self) }
    }

    func decode<each Column: PostgresDecodable & SendableMetatype>(_ type: (repeat each Column).Type) -> AsyncThrowingMapSequence<CollectedRows, (repeat each Column)> {
        map { try $0.decode((repeat each Column).self, context: .default) }
    }
}
