import Foundation

/// A color kept in a keyed archive (`UIColor`, `NSColor`), as its RGBA components in 0…1:
/// the value a transformable attribute of colors gives on Linux, where neither class exists.
///
/// For example:
///
/// ```swift
/// let tint = note.value(forKey: "tint") as? ArchivedColor   // ArchivedColor(red: 1, green: 0.5, blue: 0, alpha: 1)
/// ```
public struct ArchivedColor: Hashable, Sendable, Codable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    /// Creates a color from RGBA components in 0…1.
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }
}
