import Foundation

/// Writes wire values as JSON, byte for byte as `JSONEncoder` with `.sortedKeys` does, without
/// going through `Encodable`.
///
/// Foundation's encoder builds a tree of boxed values and sorts every object's keys; for the
/// records of a modify batch that was most of the server's time. Types that know their own
/// keys (``WireJSONWritable``) write them in sorted order directly. The output is the same
/// bytes, so stored field sizes and responses do not change (`WireJSONTests` compares them).
///
/// For example:
/// ```swift
/// var writer = WireJSONWriter()
/// try record.write(to: &writer)
/// let data = writer.data
/// ```
package struct WireJSONWriter: Sendable {
    /// The JSON written so far.
    package private(set) var bytes: [UInt8] = []

    /// Creates an empty writer.
    /// - Parameter capacity: Bytes to reserve.
    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written so far, as `Data`.
    package var data: Data { Data(bytes) }

    /// Writes the JSON of a value.
    package static func encode(_ value: some WireJSONWritable, capacity: Int = 1024) throws -> Data {
        var writer = WireJSONWriter(capacity: capacity)
        try value.write(to: &writer)
        return writer.data
    }

    // MARK: Scalars

    /// Writes ASCII text that needs no escaping (punctuation, literals, keys).
    @inline(__always)
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Writes `"key":`, preceded by a comma unless it is the object's first key (the object
    /// was just opened, so the last byte written is its `{`: no value ends with one).
    @inline(__always)
    package mutating func key(_ key: StaticString) {
        if bytes.last != UInt8(ascii: "{") { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        raw(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes `{`, the members `body` writes (keys in sorted order), and `}`.
    ///
    /// For example:
    /// ```swift
    /// try writer.object { writer in
    ///     writer.member("device", device)
    ///     writer.member("time", time)
    /// }
    /// ```
    @inline(__always)
    package mutating func object(_ body: (inout WireJSONWriter) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "{"))
        try body(&self)
        bytes.append(UInt8(ascii: "}"))
    }

    // MARK: Members

    /// Writes a string member.
    package mutating func member(_ key: StaticString, _ value: String) {
        self.key(key)
        string(value)
    }

    /// Writes an integer member.
    package mutating func member(_ key: StaticString, _ value: Int64) {
        self.key(key)
        int(value)
    }

    /// Writes a Boolean member.
    package mutating func member(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bool(value)
    }

    /// Writes a member whose value writes its own JSON.
    package mutating func member(_ key: StaticString, _ value: some WireJSONWritable) throws {
        self.key(key)
        try value.write(to: &self)
    }

    /// Writes an array member.
    package mutating func member<Element: WireJSONWritable>(_ key: StaticString, _ elements: [Element]) throws {
        self.key(key)
        try array(elements)
    }

    /// Writes a string member unless the value is nil (as `Encodable` leaves nil optionals out).
    package mutating func member(_ key: StaticString, ifPresent value: String?) {
        if let value { member(key, value) }
    }

    /// Writes a member unless the value is nil (as `Encodable` leaves nil optionals out).
    package mutating func member(_ key: StaticString, ifPresent value: (some WireJSONWritable)?) throws {
        if let value { try member(key, value) }
    }

    /// Writes a member through `JSONEncoder` unless the value is nil.
    package mutating func member(_ key: StaticString, encoding value: (some Encodable)?) throws {
        guard let value else { return }
        self.key(key)
        try encodable(value)
    }

    /// Writes a quoted string, escaped as `JSONEncoder` escapes it (including `\/`).
    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var mark = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark..<index]))
                mark = index + 1
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "/"): raw("\\/")
                case 0x08: raw("\\b")
                case 0x0C: raw("\\f")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                default:
                    raw("\\u00")
                    bytes.append(Self.hexDigit(byte >> 4))
                    bytes.append(Self.hexDigit(byte & 0x0F))
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[mark...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes an integer.
    package mutating func int(_ value: Int64) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Writes a number as `JSONEncoder` does: the shortest representation that reads back
    /// the same, without a trailing `.0`.
    /// - Throws: `EncodingError.invalidValue` for NaN and infinities, like `JSONEncoder`.
    package mutating func double(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Writes a field's number: as ``double(_:)``, with NaN and the infinities as the strings
    /// `FieldValue.nonFiniteName(_:)` gives (JSON has no way to write them as numbers).
    package mutating func number(_ value: Double) throws {
        if let name = FieldValue.nonFiniteName(value) { string(name) } else { try double(value) }
    }

    /// Writes `true` or `false`.
    package mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Writes JSON produced elsewhere (by `JSONEncoder` for types without a fast path).
    package mutating func json(_ data: Data) {
        bytes.append(contentsOf: data)
    }

    /// Writes a value that has no fast path through `JSONEncoder` with sorted keys.
    package mutating func encodable(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        json(try encoder.encode(value))
    }

    // MARK: Containers

    /// Writes an array of values.
    package mutating func array<Element: WireJSONWritable>(_ elements: [Element]) throws {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
            try element.write(to: &self)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes an object whose keys are sorted by their UTF-8 bytes, as `.sortedKeys` sorts them.
    package mutating func object<Value: WireJSONWritable>(_ dictionary: [String: Value]) throws {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for key in dictionary.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
            string(key)
            bytes.append(UInt8(ascii: ":"))
            try dictionary[key]!.write(to: &self)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

/// A wire type that writes its own JSON, keys in sorted order, exactly as its `Encodable`
/// conformance encodes with `JSONEncoder` and `.sortedKeys`.
///
/// For example:
/// ```swift
/// let body = try WireJSONWriter.encode(response)
/// ```
package protocol WireJSONWritable {
    /// Appends the value's JSON.
    func write(to writer: inout WireJSONWriter) throws
}
