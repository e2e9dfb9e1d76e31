import Foundation

/// The storage backends the conformance suite runs on.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    /// The backends to test: PostgreSQL when its binaries are installed, and always on CI
    /// (where missing binaries then fail the PostgreSQL cases).
    static var available: [Backend] {
        if PostgresHarness.enabled { return [.sqlite, .postgres] }
        PostgresHarness.printSkipReasonOnce()
        return [.sqlite]
    }

    var testDescription: String { rawValue }
}

import Testing
