import Foundation
import Testing

/// The convergence oracle catches what it is meant to catch (so that a passing seed means
/// something): a lost edit, a value nobody wrote, a resurrected object, a duplicate, an orphan.
@Suite("Convergence oracle")
struct ConvergenceOracleTests {
    static func oracle() -> ConvergenceOracle {
        var oracle = ConvergenceOracle()
        oracle.insert("Category/c0-1", by: 0, fields: ["color": "red"])
        oracle.insert("Post/p0-2", by: 0, fields: ["body": "b0", "views": "1", "category": "c0-1"])
        oracle.insert("Tag/t1", by: 0, fields: ["note": "n0"], memberships: [])
        oracle.update("Post/p0-2", field: "body", to: "b1", by: 1)       // only d1 edits body
        oracle.update("Post/p0-2", field: "views", to: "2", by: 1)
        oracle.update("Post/p0-2", field: "views", to: "3", by: 2)       // views: a conflict
        oracle.update("Post/p0-2/tags", field: "t1", to: "1", by: 2)
        oracle.insert("Post/p1-3", by: 1, fields: ["body": "x", "views": "0", "category": "nil"])
        oracle.delete("Post/p1-3")
        return oracle
    }

    static func replica(_ edit: (inout ReplicaContent) -> Void = { _ in }) -> ReplicaContent {
        var replica = ReplicaContent()
        replica.objects = [
            "Category/c0-1": ["color": "red", "posts": "Post/p0-2"],
            "Post/p0-2": ["body": "b1", "views": "2", "category": "Category/c0-1", "tags": "Tag/t1", "title": "p0-2"],
            "Tag/t1": ["note": "n0", "posts": "Post/p0-2", "name": "t1"],
        ]
        edit(&replica)
        return replica
    }

    @Test("a converged replica that follows the rules passes; either value of a conflict is accepted")
    func passes() {
        #expect(Self.oracle().check(Self.replica()) == [])
        #expect(Self.oracle().check(Self.replica { $0.objects["Post/p0-2"]!["views"] = "3" }) == [])
    }

    @Test("wrong replicas are caught", arguments: [
        "lost edit", "unwritten value", "resurrected", "missing", "orphan link", "dangling", "deleted target",
    ])
    func caught(_ fault: String) {
        let replica = Self.replica { replica in
            switch fault {
            case "lost edit": replica.objects["Post/p0-2"]!["body"] = "b0"
            case "unwritten value": replica.objects["Post/p0-2"]!["views"] = "7"
            case "resurrected": replica.objects["Post/p1-3"] = ["body": "x"]
            case "missing": replica.objects["Tag/t1"] = nil; replica.objects["Post/p0-2"]!["tags"] = ""
            case "orphan link": replica.objects["Post/p0-2"]!["tags"] = "Tag/t1,Tag/t9"
            case "dangling": replica.objects["Post/p0-2"]!["category"] = "dangling:x-coredata://x/Category/p9"
            default: replica.objects["Category/c0-1"] = nil
            }
        }
        var oracle = Self.oracle()
        if fault == "deleted target" { oracle.delete("Category/c0-1") }
        if fault == "deleted target" {
            // The post still names the deleted category.
            #expect(!oracle.check(replica).isEmpty)
        } else {
            #expect(!oracle.check(replica).isEmpty, "\(fault) was not caught")
        }
        #expect(Self.oracle().check(Self.replica { $0.duplicates = ["Tag/t1"] }).contains("duplicate object Tag/t1"))
    }
}
