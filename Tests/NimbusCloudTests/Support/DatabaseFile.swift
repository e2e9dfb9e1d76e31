import Foundation
import GRDB

/// Raw SQL on a store file, for tests that simulate crashes and lost metadata.
struct DatabaseFile {
    let queue: DatabaseQueue
    init(_ url: URL) throws { queue = try DatabaseQueue(path: url.path) }
    func execute(_ sql: String) throws { try queue.write { try $0.execute(sql: sql) } }
    func int(_ sql: String) throws -> Int { try queue.read { try Int.fetchOne($0, sql: sql) ?? 0 } }
    func string(_ sql: String) throws -> String? { try queue.read { try String.fetchOne($0, sql: sql) } }
}
