// The floor of reading one field of 200,000 objects when each row is a class instance, beside
// GRDB's shape (an array of structs): what BENCHMARKS.md's typed-access section compares
// Nimbus's `@Managed` read with. Nimbus is not involved.
//
//   swiftc -O -enforce-exclusivity=unchecked Benchmarks/Scripts/class-read-floor.swift -o /tmp/class-read-floor && /tmp/class-read-floor
//
// - "struct array": `for post in posts { post.title.utf8.count }` over `[PostStruct]`.
// - "class, stored property": the same over `[PostObject]`, reading a stored property.
// - "class, getter with a slow path": the getter checks a flag and calls a function the
//   compiler cannot see through when it is not set (as a getter that may fire a fault must).
//   The flag is always set, yet Swift retains and releases each object around the loop body,
//   because the call might release it.

import Foundation

struct PostStruct {
    var title: String
    var body: String
    var views: Int64
    var rating: Double
    var createdAt: Date
    var published: Bool
}

final class PostObject {
    var loaded = true
    var title: String?
    var body: String?
    var views: Int64 = 0
    var rating: Double = 0
    var createdAt = Date()
    var published = false

    init(title: String, body: String) {
        self.title = title
        self.body = body
    }

    var titleWithSlowPath: String? {
        if !loaded { load() }
        return title
    }

    /// Stands for what a slow path does that the compiler cannot see through (firing a
    /// fault runs SQL; Nimbus's slow path is in another module).
    @inline(never) func load() {
        loaded = true
        onLoad?(self)
    }
}

nonisolated(unsafe) var onLoad: ((PostObject) -> Void)?

let count = 200_000
let titles = (0..<count).map { "Post number \($0)" }
let bodies = (0..<count).map { "Body of post \($0). Lorem ipsum dolor sit amet." }
let structs = (0..<count).map { PostStruct(title: titles[$0], body: bodies[$0], views: Int64($0), rating: 1, createdAt: Date(), published: true) }
// Made one after another, so they lie side by side (as a Nimbus fetch makes its objects).
let objects = (0..<count).map { PostObject(title: titles[$0], body: bodies[$0]) }

@inline(never) func readStructs(_ posts: [PostStruct]) -> Int {
    var bytes = 0
    for post in posts { bytes &+= post.title.utf8.count }
    return bytes
}

@inline(never) func readStored(_ posts: [PostObject]) -> Int {
    var bytes = 0
    for post in posts { bytes &+= post.title.unsafelyUnwrapped.utf8.count }
    return bytes
}

@inline(never) func readWithSlowPath(_ posts: [PostObject]) -> Int {
    var bytes = 0
    for post in posts { bytes &+= post.titleWithSlowPath.unsafelyUnwrapped.utf8.count }
    return bytes
}

func median(_ runs: Int, _ body: () -> Int) -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        precondition(body() > 0)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times.sorted()[runs / 2]
}

print(String(format: "struct array: %.2f ms", median(15) { readStructs(structs) }))
print(String(format: "class, stored property: %.2f ms", median(15) { readStored(objects) }))
print(String(format: "class, getter with a slow path: %.2f ms", median(15) { readWithSlowPath(objects) }))
