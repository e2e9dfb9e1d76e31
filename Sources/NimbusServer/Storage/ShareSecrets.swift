import Foundation

/// A share's identifier and the secret of its URL (server-0025).
///
/// The identifier names the share in listings and on the command line; it is random only so
/// that it says nothing about other shares, and is not a secret. The secret is 256 bits from
/// the system's cryptographic generator, base64url without padding (43 characters): who
/// holds it may ask to join.
package enum ShareSecrets {
    /// The length of a secret.
    package static let secretLength = 43

    /// A new share identifier (a lower-case UUID).
    package static func newShareID() -> String {
        UUID().uuidString.lowercased()
    }

    /// A new secret.
    package static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Whether `text` has a secret's shape (anything else is unknown without a lookup).
    package static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == secretLength && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        }
    }

    /// The share's URL path, relative to the server's base URL.
    package static func path(of secret: String) -> String {
        "/v1/shares/\(secret)"
    }
}
