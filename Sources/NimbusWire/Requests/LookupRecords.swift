/// The body of `POST …/zones/{zone}/records/lookup`: record names to fetch.
///
/// For example:
/// ```swift
/// let request = LookupRecordsRequest(recordNames: [postID])
/// ```
public struct LookupRecordsRequest: Codable, Hashable, Sendable {
    /// The most names in one lookup.
    public static let maximumNames = 400

    /// The names to look up.
    public var recordNames: [String]

    /// Creates a request.
    /// - Parameter recordNames: The names to look up.
    public init(recordNames: [String]) {
        self.recordNames = recordNames
    }
}

/// The answer to a lookup: for each requested name, the record or why it is absent.
///
/// For example:
/// ```swift
/// let found = response.results.compactMap(\.record)
/// ```
public struct LookupRecordsResponse: Codable, Hashable, Sendable {
    /// One result per requested name, in request order.
    public var results: [LookupResult]

    /// Creates the response.
    /// - Parameter results: The results.
    public init(results: [LookupResult]) {
        self.results = results
    }
}

/// One name's lookup result: the record, or ``WireError/Code/unknownItem``.
public struct LookupResult: Codable, Hashable, Sendable {
    /// The requested name.
    public var recordName: String
    /// The record, when it exists.
    public var record: Record?
    /// Why there is no record: never saved, or deleted.
    public var error: ItemError?

    /// Creates a result.
    /// - Parameters:
    ///   - recordName: The requested name.
    ///   - record: The record found.
    ///   - error: The reason none was found.
    public init(recordName: String, record: Record? = nil, error: ItemError? = nil) {
        self.recordName = recordName
        self.record = record
        self.error = error
    }
}
