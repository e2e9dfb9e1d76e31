import Foundation

/// One post's values, the same for every contender: what is inserted, and what a fetch
/// reads back into memory.
public struct PostValues: Sendable, Equatable {
    public var title: String
    public var body: String
    public var views: Int64
    public var rating: Double
    public var createdAt: Date
    public var published: Bool

    public init(title: String, body: String, views: Int64, rating: Double, createdAt: Date, published: Bool) {
        self.title = title
        self.body = body
        self.views = views
        self.rating = rating
        self.createdAt = createdAt
        self.published = published
    }

    /// The `index`th post of a deterministic data set: a short title, a body of about 120
    /// characters, and numbers that vary from row to row.
    ///
    /// For example:
    ///
    /// ```swift
    /// let posts = PostValues.sample(count: 50_000)
    /// ```
    public static func sample(_ index: Int) -> PostValues {
        PostValues(
            title: "Post number \(index)",
            body: "Body of post \(index). Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.",
            views: Int64(index % 10_000),
            rating: Double(index % 50) / 10,
            createdAt: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index)),
            published: index % 2 == 0
        )
    }

    /// The first `count` posts of the deterministic data set.
    public static func sample(count: Int) -> [PostValues] { (0..<count).map(sample) }
}

/// A folder in the system's temporary directory, removed when released.
public final class ScratchFolder: @unchecked Sendable {
    public let url: URL
    private var counter = 0

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A new file name in the folder, never used before.
    public func newFile(_ stem: String) -> URL {
        counter += 1
        return url.appendingPathComponent("\(stem)-\(counter).sqlite")
    }

    /// Removes a SQLite file and its `-wal` and `-shm` companions.
    public func removeDatabase(at file: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: file.path + suffix)
        }
    }

    /// Removes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    deinit { remove() }
}

/// A benchmark failed its own check (wrong row count, missing values).
public struct BenchmarkCheckFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
