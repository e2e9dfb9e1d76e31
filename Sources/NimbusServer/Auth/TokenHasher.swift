import Crypto
import Foundation

/// Makes device tokens and the SHA-256 digests stored in their place.
///
/// A token is `nmb_` followed by 32 random bytes in base64url; only its digest is stored,
/// so a copy of the database does not reveal usable tokens.
///
/// For example:
/// ```swift
/// let token = TokenHasher.newToken()
/// let stored = TokenHasher.digest(token)
/// ```
package enum TokenHasher {
    package static let prefix = "nmb_"

    /// A fresh random token.
    package static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return prefix + text
    }

    /// The lowercase hexadecimal SHA-256 of a token.
    package static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
