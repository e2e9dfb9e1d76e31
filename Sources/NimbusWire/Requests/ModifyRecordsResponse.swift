/// The answer to a modify batch: one result per item and the zone's position afterwards.
///
/// When some items failed the HTTP status is 207 and ``error`` is a
/// ``WireError/Code/partialFailure`` listing them; in an atomic batch nothing was applied
/// and the valid items fail with ``WireError/Code/batchRequestFailed``.
///
/// For example:
/// ```swift
/// let response = try decoder.decode(ModifyRecordsResponse.self, from: body)
/// if let failure = response.error { handle(failure.itemErrors ?? []) }
/// ```
public struct ModifyRecordsResponse: Codable, Hashable, Sendable {
    /// One result per item, saves first, then deletions, each in request order.
    public var results: [RecordResult]
    /// The zone's change position after the batch.
    public var changeToken: ChangeToken
    /// A partial failure, when any item failed.
    public var error: WireError?

    /// Creates the response.
    /// - Parameters:
    ///   - results: The per-item results.
    ///   - changeToken: The zone's position afterwards.
    ///   - error: The partial failure, if any.
    public init(results: [RecordResult], changeToken: ChangeToken, error: WireError? = nil) {
        self.results = results
        self.changeToken = changeToken
        self.error = error
    }
}
