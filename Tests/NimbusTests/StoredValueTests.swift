import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

/// Stored values an attribute cannot hold, and rows a crafted store can hold, are typed
/// errors, never traps, truncations or undefined behaviour.
@Suite("Stored values out of shape")
struct StoredValueTests {
    /// Writes SQL straight into the stack's file, as another program would.
    private func raw(_ stack: TestStack, _ sql: String) throws {
        let queue = try DatabaseQueue(path: stack.url.path)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    private func seed(_ stack: TestStack) throws {
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "p", "views": 1])
            let person = try context.insert("Person", ["name": "Ada", "age": 30])
            _ = person
            try context.save()
        }
    }

    private func expectCode(_ code: NimbusError.Code, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("expected a \(code) error", sourceLocation: sourceLocation)
        } catch let error as NimbusError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a NimbusError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a REAL that is no integer in an integer column is a typeMismatch when read", arguments: ["1e30", "2.5", "9223372036854775807.0 * 4"])
    func realInIntegerColumn(_ stored: String) throws {
        let stack = try TestStack()
        try seed(stack)
        try raw(stack, "UPDATE ZPOST SET ZVIEWS = \(stored)")
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            expectCode(.typeMismatch) { _ = try context.all("Post") }
        }
    }

    @Test("integer overflow in SQL (Int64.max + 1 becomes a REAL) is a typeMismatch when read")
    func overflow() throws {
        let stack = try TestStack()
        try seed(stack)
        try raw(stack, "UPDATE ZPOST SET ZVIEWS = 9223372036854775807")
        try raw(stack, "UPDATE ZPOST SET ZVIEWS = ZVIEWS + 1")
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            expectCode(.typeMismatch) { _ = try context.all("Post") }
        }
    }

    @Test("a whole REAL in an integer column reads as the integer")
    func wholeReal() throws {
        let stack = try TestStack()
        try seed(stack)
        try raw(stack, "UPDATE ZPOST SET ZVIEWS = 42.0")
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            #expect(try context.all("Post").first?.value(forKey: "views") as? Int64 == 42)
        }
    }

    @Test("70000 in an integer16 column is a typeMismatch, not 4464")
    func integer16OutOfRange() throws {
        let stack = try TestStack()
        try seed(stack)
        try raw(stack, "UPDATE ZPERSON SET ZAGE = 70000")
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            expectCode(.typeMismatch) { _ = try context.all("Person") }
            // A fault fired by an accessor reports it too, instead of a truncated value.
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.includesPropertyValues = false
            let person = try #require(try context.fetch(request).first)
            expectCode(.typeMismatch) { _ = try person.validatedValue(forKey: "age") }
            #expect(person.value(forKey: "age") == nil)
            // Dictionary results do not truncate either.
            var ages = FetchRequest<[String: Any]>(entityName: "Person")
            ages.propertiesToFetch = ["age"]
            expectCode(.typeMismatch) { _ = try context.fetch(ages) }
        }
    }

    @Test("a batch update whose expression leaves an integer attribute's range changes nothing")
    func batchUpdateOutOfRange() throws {
        let stack = try TestStack()
        try seed(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = BatchUpdateRequest(entityName: "Post")
            request.propertiesToUpdate = ["views": QueryExpression.function("multiply:by:", [.keyPath(["views"]), .constant(.double(1e30))])]
            expectCode(.typeMismatch) { try context.execute(request) }
            var person = BatchUpdateRequest(entityName: "Person")
            person.propertiesToUpdate = ["age": QueryExpression.function("multiply:by:", [.keyPath(["age"]), .constant(.integer(10_000))])]
            expectCode(.typeMismatch) { try context.execute(person) }
            var text = BatchUpdateRequest(entityName: "Post")
            text.propertiesToUpdate = ["views": QueryExpression.keyPath(["title"])]
            expectCode(.typeMismatch) { try context.execute(text) }
            let reread = try stack.reopenedContext()
            try reread.performAndWait { () throws in
                #expect(try reread.all("Post").first?.value(forKey: "views") as? Int64 == 1)
                #expect(try reread.all("Person").first?.value(forKey: "age") as? Int16 == 30)
            }
            // An expression that stays in range still works.
            var fine = BatchUpdateRequest(entityName: "Post")
            fine.propertiesToUpdate = ["views": QueryExpression.function("multiply:by:", [.keyPath(["views"]), .constant(.integer(3))])]
            #expect(try context.execute(fine).count == 1)
        }
    }

    @Test("a row whose Z_ENT is NULL, -1 or another hierarchy's is a corruptStore error", arguments: ["NULL", "-1", "0", "99"])
    func badEntityNumber(_ stored: String) throws {
        let stack = try TestStack()
        try seed(stack)
        try raw(stack, "UPDATE ZPOST SET Z_ENT = \(stored)")
        let context = try stack.reopenedContext()
        try context.performAndWait { () throws in
            expectCode(.corruptStore) { _ = try context.all("Post") }
            var ids = FetchRequest<ManagedObjectID>(entityName: "Post")
            ids.predicate = nil
            expectCode(.corruptStore) { _ = try context.fetch(ids) }
        }
    }

    @Test("a value larger than SQLite accepts is an error on save, not a trap, and nothing is written")
    func tooBig() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            // calloc'd pages: 2 GiB + 1 byte of address space, never touched (SQLite refuses it first).
            let huge = Data(count: Int(Int32.max) + 2)
            let post = try context.insert("Post", ["title": "big"])
            post.setValue(huge, forKey: "thumbnail")
            expectCode(.invalidArgument) { try context.save() }
            context.rollback()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 0)
            // Batch requests bind their values with the same checks.
            expectCode(.invalidArgument) { try context.execute(BatchInsertRequest(entityName: "Post", objects: [["title": "ok"], ["thumbnail": huge]])) }
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 0)
            _ = try context.insert("Post", ["title": "small"])
            try context.save()
            var update = BatchUpdateRequest(entityName: "Post")
            update.propertiesToUpdate = ["thumbnail": huge]
            expectCode(.invalidArgument) { try context.execute(update) }
        }
    }
}
