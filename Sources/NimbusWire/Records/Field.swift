/// A record field: its value (or `nil` when the field was cleared) and the stamp of its
/// last edit.
///
/// A cleared field keeps its stamp so that, under the `changedKeys` save policy, clearing a
/// field merges like any other edit.
///
/// For example:
/// ```swift
/// let title = Field(.string("Hello"), stamp: HLCStamp(time: clock.now(), device: "phone"))
/// ```
public struct Field: Codable, Hashable, Sendable {
    /// The value, or `nil` when the field is cleared.
    public var value: FieldValue?
    /// The hybrid-logical-clock stamp of the last edit.
    public var stamp: HLCStamp

    /// Creates a field.
    /// - Parameters:
    ///   - value: The value, or `nil` for a cleared field.
    ///   - stamp: The stamp of the edit.
    public init(_ value: FieldValue?, stamp: HLCStamp) {
        self.value = value
        self.stamp = stamp
    }

    private enum CodingKeys: String, CodingKey {
        case value
        case stamp
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.value = try container.decodeIfPresent(FieldValue.self, forKey: .value)
        self.stamp = try container.decode(HLCStamp.self, forKey: .stamp)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let value { try container.encode(value, forKey: .value) } else { try container.encodeNil(forKey: .value) }
        try container.encode(stamp, forKey: .stamp)
    }
}
