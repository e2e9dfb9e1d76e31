import NimbusWire

/// The Nimbus sync server.
public enum NimbusServer {
    /// The protocol version the server speaks.
    public static let protocolVersion = NimbusWire.protocolVersion
}
