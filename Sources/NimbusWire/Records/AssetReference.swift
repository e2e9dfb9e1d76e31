/// A field value that points at an uploaded asset by its content hash.
///
/// Assets upload separately (`PUT /v1/containers/{container}/assets`); a record refers to
/// one by its lowercase hexadecimal SHA-256 checksum.
///
/// For example:
/// ```swift
/// let photo = FieldValue.asset(AssetReference(checksum: sha256Hex, size: 48_213))
/// ```
public struct AssetReference: Codable, Hashable, Sendable {
    /// The lowercase hexadecimal SHA-256 of the asset's bytes (64 characters).
    public var checksum: String
    /// The asset's size in bytes.
    public var size: Int64

    /// Creates a reference to an uploaded asset.
    /// - Parameters:
    ///   - checksum: The lowercase hexadecimal SHA-256 of the bytes.
    ///   - size: The size in bytes.
    public init(checksum: String, size: Int64) {
        self.checksum = checksum
        self.size = size
    }
}
