import Foundation

/// When and by which device the server accepted a change to a record.
///
/// The server assigns these; clients send them back unchanged or omit them.
///
/// For example:
/// ```swift
/// print(record.modified?.device ?? "never saved")
/// ```
public struct RecordStamp: Codable, Hashable, Sendable {
    /// The server time of the change, in milliseconds since 1970.
    public var time: Int64
    /// The device whose request made the change.
    public var device: String

    /// Creates a stamp.
    /// - Parameters:
    ///   - time: Milliseconds since 1970 on the server's clock.
    ///   - device: The id of the device.
    public init(time: Int64, device: String) {
        self.time = time
        self.device = device
    }

    /// The stamp's time as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(time) / 1000) }
}
