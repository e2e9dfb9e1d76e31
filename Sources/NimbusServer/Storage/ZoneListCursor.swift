import Foundation
import NimbusWire

/// Where a page of a zone listing starts: after the zone with this name (and, in a shared
/// database, this owner). Listings are ordered by zone name, then owner name.
///
/// On the wire a position is a continuation: base64url of `l1`, the zone name and the owner
/// name, each base64url too, joined by dots. It holds only names the caller was shown, so it
/// needs no secret; a damaged one is refused, never guessed at.
package struct ZoneListCursor: Hashable, Sendable {
    package var zoneName: String
    /// The owner's user name; empty outside the shared database.
    package var ownerName: String

    package init(zoneName: String, ownerName: String = "") {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// Longest continuation accepted: two names of at most 255 bytes, base64url twice.
    static let maximumLength = 1024
    private static let prefix = "l1"

    /// The continuation text.
    package var continuation: String {
        Self.base64url(Data([Self.prefix, Self.base64url(Data(zoneName.utf8)), Self.base64url(Data(ownerName.utf8))]
            .joined(separator: ".").utf8))
    }

    /// Decodes a continuation received from a client.
    /// - Throws: `invalidArguments` when it is not one this server issued.
    package init(continuation: String) throws(WireError) {
        let refused = WireError(.invalidArguments, "The continuation is not one this server issued for a zone listing; list from the start.")
        guard continuation.utf8.count <= Self.maximumLength, let outer = Self.decode(continuation),
              let text = String(data: outer, encoding: .utf8)
        else { throw refused }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.prefix,
              let zone = Self.decode(String(parts[1])).flatMap({ String(data: $0, encoding: .utf8) }), !zone.isEmpty,
              let owner = Self.decode(String(parts[2])).flatMap({ String(data: $0, encoding: .utf8) })
        else { throw refused }
        self.init(zoneName: zone, ownerName: owner)
    }

    private static func base64url(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func decode(_ text: String) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var padded = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded)
    }
}
