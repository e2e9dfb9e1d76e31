import Foundation
import NimbusWire

/// Encodes positions in change sequences as opaque ``ChangeToken``s and decodes them back.
///
/// A zone token holds the zone's incarnation (``ZoneState/incarnation``: random, or the row id
/// of a zone older than decision server-0018) and a sequence number; a database token holds a
/// sequence number. Both are base64url text so clients treat them as opaque.
package enum ChangeTokenCodec {
    private static let zonePrefix = "z1"
    private static let databasePrefix = "d1"

    package static func zoneToken(zoneIncarnation: Int64, seq: Int64) -> ChangeToken {
        ChangeToken(rawValue: encode("\(zonePrefix).\(zoneIncarnation).\(seq)"))
    }

    package static func databaseToken(seq: Int64) -> ChangeToken {
        ChangeToken(rawValue: encode("\(databasePrefix).\(seq)"))
    }

    /// Decodes a zone token.
    /// - Throws: `invalidArguments` when the text is not a zone token of this server.
    package static func decodeZone(_ token: ChangeToken) throws(WireError) -> (zoneIncarnation: Int64, seq: Int64) {
        let parts = try decode(token).split(separator: ".")
        guard parts.count == 3, parts[0] == zonePrefix, let zone = Int64(parts[1]), let seq = Int64(parts[2]), seq >= 0
        else { throw WireError(.invalidArguments, "The change token is not a zone token issued by this server.") }
        return (zone, seq)
    }

    /// Decodes a database token.
    /// - Throws: `invalidArguments` when the text is not a database token of this server.
    package static func decodeDatabase(_ token: ChangeToken) throws(WireError) -> Int64 {
        let parts = try decode(token).split(separator: ".")
        guard parts.count == 2, parts[0] == databasePrefix, let seq = Int64(parts[1]), seq >= 0
        else { throw WireError(.invalidArguments, "The change token is not a database token issued by this server.") }
        return seq
    }

    /// A change tag for a record changed at `seq` in zone incarnation `zoneIncarnation`.
    package static func changeTag(zoneIncarnation: Int64, seq: Int64) -> String {
        String(zoneIncarnation, radix: 36) + "-" + String(seq, radix: 36)
    }

    private static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func decode(_ token: ChangeToken) throws(WireError) -> String {
        var text = token.rawValue.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard token.rawValue.count <= 200, let data = Data(base64Encoded: text), let string = String(data: data, encoding: .utf8)
        else { throw WireError(.invalidArguments, "The change token is not one issued by this server.") }
        return string
    }
}
