import Foundation

/// The scenarios every contender runs.
public enum Scenario: String, CaseIterable, Sendable {
    /// Insert 50,000 objects with one save (one transaction).
    case insert = "insert 50,000 objects, one save"
    /// Fetch 200,000 objects with every attribute materialized.
    case fetchMaterialized = "fetch 200,000 objects, materialized"
    /// The same fetch, then read every object's title (Nimbus: by key, with `value(forKey:)`).
    case fetchAndReadTitles = "fetch 200,000 objects, materialized, then read every title"
    /// Fetch 200,000 objects as faults (IDs only), then fire every 100th (2,000 objects).
    case fetchFaults = "fetch 200,000 as faults, fire 1%"
    /// Fetch and read every title, Nimbus through a typed `@Managed` accessor (`post.title`).
    case fetchAndReadTitlesTyped = "fetch 200,000 objects, materialized, then read every title (Nimbus: typed @Managed accessor)"
    /// Only the read of every title of 200,000 fetched objects is timed: Nimbus's typed
    /// accessor against a struct field.
    case readTitles = "read every title of 200,000 fetched objects (Nimbus: typed @Managed accessor; GRDB, raw C: struct field)"

    /// Rows the scenario works on.
    public var rows: Int {
        switch self {
        case .insert: 50_000 / Scenario.divisor
        case .fetchMaterialized, .fetchAndReadTitles, .fetchFaults, .fetchAndReadTitlesTyped, .readTitles: 200_000 / Scenario.divisor
        }
    }

    /// Divides every scenario's rows, to profile under valgrind at a smaller size (1: the
    /// published sizes). Set before the first case is made.
    nonisolated(unsafe) public static var divisor = 1

    /// Every how many fetched objects one is fired (fault scenario).
    public static let fireStride = 100
}

/// Who runs a scenario.
public enum Contender: String, CaseIterable, Sendable {
    case nimbus = "Nimbus"
    case rawSQLite = "raw SQLite C"
    case grdb = "GRDB records"
}

/// One contender's implementation of one scenario.
///
/// A harness calls ``prepare()`` (not timed), then ``run()`` (timed), then ``verify()``
/// (not timed; throws when the run did not do its work) for each iteration.
public protocol BenchmarkCase: AnyObject {
    var scenario: Scenario { get }
    var contender: Contender { get }
    /// Sets up one iteration: an empty database to insert into, or a fresh connection.
    func prepare() throws
    /// The measured work.
    func run() throws
    /// Checks what ``run()`` did and releases what it kept.
    func verify() throws
}

/// Builds the cases of every scenario and contender, sharing one scratch folder and the
/// 200,000-row databases the fetch scenarios read.
///
/// Call ``removeFiles()`` when done: a suite held by a global is never deinitialized.
public final class BenchmarkSuite: @unchecked Sendable {
    private var scratch: ScratchFolder?
    private var fixtures: [Contender: URL] = [:]

    public init() {}

    /// The scratch folder, made on first use.
    public var folder: ScratchFolder {
        get throws {
            if let scratch { return scratch }
            let made = try ScratchFolder()
            scratch = made
            return made
        }
    }

    /// Removes every database the suite made; later cases start over.
    public func removeFiles() {
        scratch?.remove()
        scratch = nil
        fixtures = [:]
    }

    /// The case of a scenario for a contender.
    public func makeCase(_ scenario: Scenario, _ contender: Contender) throws -> any BenchmarkCase {
        switch scenario {
        case .insert:
            let folder = try folder
            let posts = PostValues.sample(count: scenario.rows)
            switch contender {
            case .nimbus: return NimbusInsert(folder: folder, posts: posts)
            case .rawSQLite: return RawSQLiteInsert(folder: folder, posts: posts)
            case .grdb: return GRDBInsert(folder: folder, posts: posts)
            }
        case .fetchMaterialized, .fetchAndReadTitles:
            let file = try fixture(for: contender)
            let readsTitles = scenario == .fetchAndReadTitles
            switch contender {
            case .nimbus: return NimbusFetchMaterialized(file: file, readsTitles: readsTitles)
            case .rawSQLite: return RawSQLiteFetchMaterialized(file: file, readsTitles: readsTitles)
            case .grdb: return GRDBFetchMaterialized(file: file, readsTitles: readsTitles)
            }
        case .fetchAndReadTitlesTyped:
            let file = try fixture(for: contender)
            switch contender {
            case .nimbus: return NimbusTypedFetchAndRead(file: file)
            case .rawSQLite: return RawSQLiteFetchMaterialized(file: file, readsTitles: true)
            case .grdb: return GRDBFetchMaterialized(file: file, readsTitles: true)
            }
        case .readTitles:
            return ReadTitles(file: try fixture(for: contender), contender: contender)
        case .fetchFaults:
            let file = try fixture(for: contender)
            switch contender {
            case .nimbus: return NimbusFetchFaults(file: file)
            case .rawSQLite: return RawSQLiteFetchFaults(file: file)
            case .grdb: return GRDBFetchFaults(file: file)
            }
        }
    }

    /// A database of 200,000 posts in the contender's own layout, made once.
    private func fixture(for contender: Contender) throws -> URL {
        if let file = fixtures[contender] { return file }
        let file = try folder.newFile("fixture-\(contender)")
        let rows = Scenario.fetchMaterialized.rows
        switch contender {
        case .nimbus: try NimbusStore.fill(file, rows: rows)
        case .rawSQLite: try RawSQLite.fill(file, rows: rows)
        case .grdb: try GRDBPost.fill(file, rows: rows)
        }
        fixtures[contender] = file
        return file
    }
}
