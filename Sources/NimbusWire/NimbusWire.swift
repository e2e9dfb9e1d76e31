/// The sync protocol's wire types: records, zones, change tokens, requests, responses,
/// push messages and errors. Codable values only; no I/O.
///
/// Every route lives under `/v1/`; ``protocolVersion`` names that version. Decoders ignore
/// unknown keys, so a newer server can add fields without breaking older clients.
///
/// For example:
/// ```swift
/// let record = try JSONDecoder().decode(Record.self, from: data)
/// ```
public enum NimbusWire {
    /// The protocol version this build speaks.
    public static let protocolVersion = 1

    /// The path prefix of every versioned route, for example `/v1`.
    public static let pathPrefix = "/v\(protocolVersion)"
}
