/// The sync protocol's wire types: records, zones, change tokens, requests, responses,
/// push messages and errors. Codable values only; no I/O.
public enum NimbusWire {
    /// The protocol version this build speaks.
    public static let protocolVersion = 1
}
