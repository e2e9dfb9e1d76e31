/// The hybrid-logical-clock stamp of a field's last edit: a clock reading and the device
/// that made the edit.
///
/// Stamps order edits the same way on every replica: the later ``time`` wins, and equal
/// times are broken by comparing ``device`` (the greater device id wins), never by arrival
/// order.
///
/// For example:
/// ```swift
/// let a = HLCStamp(time: 10, device: "phone")
/// let b = HLCStamp(time: 10, device: "tablet")
/// assert(a < b)
/// ```
public struct HLCStamp: Codable, Hashable, Sendable, Comparable {
    /// The hybrid logical clock reading (milliseconds since 1970 shifted left 16 bits,
    /// plus a logical counter in the low 16 bits, as the client's clock produced it).
    public var time: Int64
    /// The id of the device that made the edit.
    public var device: String

    /// Creates a stamp.
    /// - Parameters:
    ///   - time: The hybrid logical clock reading.
    ///   - device: The device that made the edit.
    public init(time: Int64, device: String) {
        self.time = time
        self.device = device
    }

    public static func < (lhs: HLCStamp, rhs: HLCStamp) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        return lhs.device < rhs.device
    }
}
