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
// - "class, slow path promised to release nothing": the same getter, with the slow path marked
//   `@_effects(releasenone)`. Swift then drops the retain and release, and the loop costs what
//   the stored property costs: the retain and release are the whole gap. Nimbus cannot make
//   that promise: its slow path fires the fault, which runs `awakeFromFetch` (the app's code,
//   which may release anything) and replaces the object's values; a false promise lets the
//   optimizer keep a reference the call frees (a use after free).
// - "class, indices" and "class, forEach": other ways to write the loop, which keep the
//   retain and release.

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

    var titleWithPromisedSlowPath: String? {
        if !loaded { loadReleasingNothing() }
        return title
    }

    /// Stands for what a slow path does that the compiler cannot see through (firing a
    /// fault runs SQL; Nimbus's slow path is in another module).
    @inline(never) func load() {
        loaded = true
        onLoad?(self)
    }

    /// The same, with a promise (true here, as `onLoad` is never set) that it releases nothing.
    @_effects(releasenone) @inline(never) func loadReleasingNothing() {
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

@inline(never) func readWithPromisedSlowPath(_ posts: [PostObject]) -> Int {
    var bytes = 0
    for post in posts { bytes &+= post.titleWithPromisedSlowPath.unsafelyUnwrapped.utf8.count }
    return bytes
}

@inline(never) func readByIndex(_ posts: [PostObject]) -> Int {
    var bytes = 0
    for index in posts.indices { bytes &+= posts[index].titleWithSlowPath.unsafelyUnwrapped.utf8.count }
    return bytes
}

@inline(never) func readForEach(_ posts: [PostObject]) -> Int {
    var bytes = 0
    posts.forEach { bytes &+= $0.titleWithSlowPath.unsafelyUnwrapped.utf8.count }
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
print(String(format: "class, slow path promised to release nothing: %.2f ms", median(15) { readWithPromisedSlowPath(objects) }))
print(String(format: "class, getter with a slow path, indices: %.2f ms", median(15) { readByIndex(objects) }))
print(String(format: "class, getter with a slow path, forEach: %.2f ms", median(15) { readForEach(objects) }))
