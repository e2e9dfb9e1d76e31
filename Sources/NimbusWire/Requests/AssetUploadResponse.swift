/// The answer to `PUT /v1/containers/{container}/assets`: the reference to put in records.
///
/// For example:
/// ```swift
/// let asset = try decoder.decode(AssetUploadResponse.self, from: body).asset
/// record.fields["photo"] = Field(.asset(asset), stamp: stamp)
/// ```
public struct AssetUploadResponse: Codable, Hashable, Sendable {
    /// The uploaded asset's checksum and size.
    public var asset: AssetReference

    /// Creates the response.
    /// - Parameter asset: The stored asset.
    public init(asset: AssetReference) {
        self.asset = asset
    }
}
