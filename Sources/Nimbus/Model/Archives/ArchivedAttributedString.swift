import Foundation

/// An `NSAttributedString` kept in a keyed archive: its string and, per run of UTF-16
/// offsets, its attributes (attribute values are the decoded Foundation values, colors as
/// ``ArchivedColor``, and classes Nimbus does not know, such as fonts, as ``ArchivedObject``).
///
/// For example:
///
/// ```swift
/// let text = note.value(forKey: "body") as? ArchivedAttributedString
/// print(text?.string ?? "", text?.runs.first?.attributes.keys.sorted() ?? [])
/// ```
public struct ArchivedAttributedString: @unchecked Sendable, CustomStringConvertible {
    /// One run: a range of UTF-16 offsets into ``string`` and its attributes.
    public struct Run: @unchecked Sendable {
        public var range: Range<Int>
        public var attributes: [String: Any]

        public init(range: Range<Int>, attributes: [String: Any]) {
            self.range = range
            self.attributes = attributes
        }
    }

    public var string: String
    public var runs: [Run]

    /// Creates an attributed string; without runs, the whole string has no attributes.
    public init(string: String, runs: [Run] = []) {
        self.string = string
        self.runs = runs
    }

    public var description: String { string }
}

/// An archived object of a class Nimbus does not know (a font, a paragraph style): its
/// class name and its archived fields, decoded where they are plain values.
public struct ArchivedObject: @unchecked Sendable, CustomStringConvertible {
    public var className: String
    public var fields: [String: Any]

    public var description: String { "<\(className)>" }
}
