import Foundation

/// The storage backends the conformance suite runs on.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    /// The backends this machine can run: PostgreSQL only when its binaries are installed.
    static var available: [Backend] {
        if PostgresHarness.binariesPresent { return [.sqlite, .postgres] }
        PostgresHarness.printSkipReasonOnce()
        return [.sqlite]
    }

    var testDescription: String { rawValue }
}

import Testing
