import Foundation

/// The fields of an `application/x-www-form-urlencoded` body.
///
/// For example:
/// ```swift
/// FormData(body: "token=nmb_abc&csrf=12")["token"]  // "nmb_abc"
/// ```
package struct FormData: Sendable {
    private var values: [String: String] = [:]

    /// The largest form the console reads.
    package static let maximumBytes = 64 * 1024

    /// Parses a body; later duplicates of a name are ignored.
    package init(body: String) {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), values[name] == nil else { continue }
            values[name] = parts.count > 1 ? Self.decode(parts[1]) ?? "" : ""
        }
    }

    package subscript(_ name: String) -> String? { values[name] }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
