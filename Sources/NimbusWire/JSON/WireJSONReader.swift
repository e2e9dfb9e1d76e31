import Foundation

/// Reads the JSON of the wire types that dominate a server's work (modify batches, stored
/// record fields) without going through `Decodable`, or declines.
///
/// The reader accepts a strict subset of what `JSONDecoder` accepts and, for that subset,
/// produces the same values. Whatever lies outside it (a missing or mistyped key, a duplicate
/// key, a number written as `1.0` for an integer, deep nesting, malformed JSON) makes it
/// return `nil`, and the caller decodes with `JSONDecoder`, which then also reports the error.
/// So the fast path changes speed, never what is accepted or how errors read.
///
/// For example:
/// ```swift
/// let request = body.withUnsafeBytes { ModifyRecordsRequest.readJSON($0) }
///     ?? (try JSONDecoder().decode(ModifyRecordsRequest.self, from: body))
/// ```
package struct WireJSONReader {
    private let bytes: UnsafeRawBufferPointer
    private var index: Int
    private var depth = 0

    /// The deepest nesting read; deeper input is left to `JSONDecoder`.
    private static let maximumDepth = 64

    /// Reads one value with `read`, requiring only whitespace after it.
    package static func read<T>(_ bytes: UnsafeRawBufferPointer, _ read: (inout WireJSONReader) -> T?) -> T? {
        var reader = WireJSONReader(bytes: bytes, index: 0)
        guard let value = read(&reader) else { return nil }
        reader.skipWhitespace()
        return reader.index == bytes.count ? value : nil
    }

    // MARK: Scalars

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        skipWhitespace()
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// `null`, consumed; `false` (nothing consumed) for anything else.
    mutating func null() -> Bool { literal("null") }

    mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    private mutating func escapedString(from start: Int) -> String? {
        var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    utf8.append(contentsOf: Character(unicode).utf8)
                default:
                    return nil
                }
            default:
                if byte < 0x20 { return nil }
                utf8.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// An integer written with digits only (no fraction, no exponent, no leading zero).
    mutating func int64() -> Int64? {
        skipWhitespace()
        var position = index
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let first = position
        var magnitude: UInt64 = 0
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (plus, overflow2) = times.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { return nil }
            magnitude = plus
            position += 1
        }
        let digits = position - first
        guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[position]) { return nil }
        let value: Int64
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        index = position
        return value
    }

    /// Any JSON number, as the nearest `Double`.
    mutating func double() -> Double? {
        skipWhitespace()
        let start = index
        var position = index
        func digits() -> Int {
            let from = position
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            return position - from
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { return nil }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { return nil }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        index = position
        return value
    }

    // MARK: Containers

    /// Reads an object, calling `member` with each key after its colon; `member` reads the
    /// value and returns `false` to decline.
    mutating func object(_ member: (inout WireJSONReader, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")), depth < Self.maximumDepth else { return false }
        depth += 1
        defer { depth -= 1 }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), consume(UInt8(ascii: ":")), member(&self, key) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// Reads an array whose elements `element` reads.
    mutating func array<Element>(_ element: (inout WireJSONReader) -> Element?) -> [Element]? {
        guard consume(UInt8(ascii: "[")), depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        var elements: [Element] = []
        if consume(UInt8(ascii: "]")) { return elements }
        repeat {
            guard let value = element(&self) else { return nil }
            elements.append(value)
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? elements : nil
    }

    /// Skips any value (for keys the types do not know, which `JSONDecoder` ignores too).
    mutating func skipValue() -> Bool {
        skipWhitespace()
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object { reader, _ in reader.skipValue() }
        case UInt8(ascii: "["): return array { reader in reader.skipValue() ? () : nil } != nil
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
        case UInt8(ascii: "n"): return null()
        default: return double() != nil
        }
    }

    /// Where the next value starts, and a reader for a value that started at `position`
    /// (a `FieldValue`'s `value` may come before its `type`).
    var position: Int { index }
    func reader(at position: Int) -> WireJSONReader {
        WireJSONReader(bytes: bytes, index: position, depth: depth)
    }
}
