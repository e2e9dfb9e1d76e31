extension WireError {
    /// A stable error code. New codes can be added without breaking clients: a code this
    /// build does not know decodes and compares by its text.
    ///
    /// For example:
    /// ```swift
    /// if error.code == .serverRecordChanged { merge(error.serverRecord) }
    /// ```
    public struct Code: Hashable, Sendable, Codable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case serverRecordChanged, zoneNotFound, unknownItem, changeTokenExpired
            case limitExceeded, quotaExceeded, requestRateLimited, notAuthenticated
            case permissionFailure, invalidArguments, partialFailure, batchRequestFailed
            case serviceUnavailable, internalError
            case other(String)
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// A save under ``SavePolicy/ifServerRecordUnchanged`` found another version; the
        /// error carries the server's record.
        public static let serverRecordChanged = Code(.serverRecordChanged)
        /// The zone does not exist (or was deleted).
        public static let zoneNotFound = Code(.zoneNotFound)
        /// The record, asset or user does not exist, or the record was deleted.
        public static let unknownItem = Code(.unknownItem)
        /// The change token is older than the tombstone horizon or from another zone
        /// incarnation; refetch from scratch.
        public static let changeTokenExpired = Code(.changeTokenExpired)
        /// A batch or a record is too large; split it and retry.
        public static let limitExceeded = Code(.limitExceeded)
        /// The user's storage quota would be exceeded.
        public static let quotaExceeded = Code(.quotaExceeded)
        /// Too many requests; retry after ``WireError/retryAfter`` seconds.
        public static let requestRateLimited = Code(.requestRateLimited)
        /// The bearer token is missing, forged, expired or revoked.
        public static let notAuthenticated = Code(.notAuthenticated)
        /// The caller may not reach this database or zone.
        public static let permissionFailure = Code(.permissionFailure)
        /// The request is malformed: bad JSON, wrong types, bad names.
        public static let invalidArguments = Code(.invalidArguments)
        /// Some items of a batch failed; see ``WireError/itemErrors``.
        public static let partialFailure = Code(.partialFailure)
        /// This item was valid but not applied because another item of an atomic batch failed.
        public static let batchRequestFailed = Code(.batchRequestFailed)
        /// The server or its database is briefly unavailable; retry after
        /// ``WireError/retryAfter`` seconds.
        public static let serviceUnavailable = Code(.serviceUnavailable)
        /// An unexpected server failure; the server logged it with the request id.
        public static let internalError = Code(.internalError)

        /// The code's text on the wire, for example `"zoneNotFound"`.
        public var rawValue: String {
            switch base {
            case .serverRecordChanged: "serverRecordChanged"
            case .zoneNotFound: "zoneNotFound"
            case .unknownItem: "unknownItem"
            case .changeTokenExpired: "changeTokenExpired"
            case .limitExceeded: "limitExceeded"
            case .quotaExceeded: "quotaExceeded"
            case .requestRateLimited: "requestRateLimited"
            case .notAuthenticated: "notAuthenticated"
            case .permissionFailure: "permissionFailure"
            case .invalidArguments: "invalidArguments"
            case .partialFailure: "partialFailure"
            case .batchRequestFailed: "batchRequestFailed"
            case .serviceUnavailable: "serviceUnavailable"
            case .internalError: "internalError"
            case .other(let text): text
            }
        }

        /// Every code this build knows.
        public static let known: [Code] = [
            .serverRecordChanged, .zoneNotFound, .unknownItem, .changeTokenExpired,
            .limitExceeded, .quotaExceeded, .requestRateLimited, .notAuthenticated,
            .permissionFailure, .invalidArguments, .partialFailure, .batchRequestFailed,
            .serviceUnavailable, .internalError,
        ]

        /// Creates a code from its wire text; unknown text is kept as is.
        /// - Parameter rawValue: The code's text.
        public init(rawValue: String) {
            self = Code.known.first { $0.rawValue == rawValue } ?? Code(.other(rawValue))
        }

        /// The HTTP status a server answers with when this code fails a whole request.
        public var httpStatus: Int {
            switch base {
            case .serverRecordChanged: 409
            case .zoneNotFound, .unknownItem: 404
            case .changeTokenExpired: 410
            case .limitExceeded: 413
            case .quotaExceeded: 507
            case .requestRateLimited: 429
            case .notAuthenticated: 401
            case .permissionFailure: 403
            case .invalidArguments: 400
            case .partialFailure: 207
            case .batchRequestFailed: 424
            case .serviceUnavailable: 503
            case .internalError, .other: 500
            }
        }

        /// Whether retrying the same request later may succeed.
        public var isRetryable: Bool {
            self == .requestRateLimited || self == .serviceUnavailable
        }

        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }
    }
}
