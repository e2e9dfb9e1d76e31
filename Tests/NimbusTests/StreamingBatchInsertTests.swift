import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

/// Batch inserts written one row at a time while the handler produces them (decision 0023).
@Suite("Streaming batch insert")
struct StreamingBatchInsertTests {
    private func maxKey(_ stack: TestStack) throws -> Int? {
        try DatabaseQueue(path: stack.url.path).read { db in try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post'") }
    }

    @Test("a handler's bad value after good rows writes nothing and takes no keys; the next insert starts at key 1")
    func badRowRollsBack() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var produced = 0
            let bad = BatchInsertRequest(entityName: "Post") { row in
                produced += 1
                if produced > 1_000 { row = ["views": "many"]; return false }
                row = ["title": "p\(produced)", "views": produced]
                return false
            }
            #expect { try context.execute(bad) } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
            #expect(produced == 1_001, "rows are pulled one at a time until the bad one")
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 0)
        }
        #expect(try maxKey(stack) == 0)
        try context.performAndWait { () throws in
            var left = 3
            var request = BatchInsertRequest(entityName: "Post") { row in
                guard left > 0 else { return true }
                row = ["title": "t\(left)"]
                left -= 1
                return false
            }
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.count == 3)
            #expect(result.objectIDs.map(\.primaryKey) == [1, 2, 3])
            let counted = try context.execute(BatchInsertRequest(entityName: "Post", objects: [["title": "a"], ["title": "b"]]))
            #expect(counted.count == 2 && counted.objectIDs.isEmpty, "IDs only when asked for")
        }
        #expect(try maxKey(stack) == 5, "Z_MAX stays the highest key written")
    }
}
