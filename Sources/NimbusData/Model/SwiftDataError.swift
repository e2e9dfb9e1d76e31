/// An error of NimbusData, with a stable code and a message that says what to do (the
/// counterpart of SwiftData's `SwiftDataError`).
///
/// ```swift
/// do { try context.save() } catch let error as SwiftDataError where error.code == .modelValidationFailure { … }
/// ```
public struct SwiftDataError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }
        /// A model property's type cannot be stored.
        public static let unsupportedType = Code(name: "unsupportedType")
        /// The container could not open its store.
        public static let loadIssueModelContainer = Code(name: "loadIssueModelContainer")
        /// A fetch descriptor has a predicate or sort that cannot run in SQL.
        public static let unsupportedPredicate = Code(name: "unsupportedPredicate")
        public static let unsupportedSortDescriptor = Code(name: "unsupportedSortDescriptor")
        /// A save was refused (validation, uniqueness, a read-only configuration).
        public static let modelValidationFailure = Code(name: "modelValidationFailure")
        /// The configuration does not allow saves.
        public static let saveNotAllowed = Code(name: "saveNotAllowed")
        /// An identifier names no model of this container.
        public static let unknownIdentifier = Code(name: "unknownIdentifier")
        /// A migration plan is inconsistent or a stage failed.
        public static let migrationFailed = Code(name: "migrationFailed")
        /// A history token is not of this store, or has expired.
        public static let historyTokenExpired = Code(name: "historyTokenExpired")
    }

    public var code: Code
    public var message: String
    public var underlying: (any Error)?

    init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        underlying.map { "\(code): \(message) (\($0))" } ?? "\(code): \(message)"
    }
}

typealias ModelError = SwiftDataError
