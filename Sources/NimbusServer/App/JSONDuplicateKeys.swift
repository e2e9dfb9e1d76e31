import Foundation

/// Finds a key repeated inside one JSON object. `JSONDecoder` silently keeps one of the
/// values, so `{"recordName":"a","recordName":"b"}` would mean different things to
/// different parsers (a proxy, a log, the server); the server refuses such bodies instead.
///
/// One pass over the bytes, with a set of keys per open object; malformed JSON returns
/// `nil` and is left to the decoder to report. Keys are compared after unescaping, so
/// `"a"` and `"\u0061"` are the same key.
///
/// For example:
/// ```swift
/// JSONDuplicateKeys.first(in: Array(#"{"a":1,"b":{"a":2},"a":3}"#.utf8))   // "a"
/// ```
package enum JSONDuplicateKeys {
    private enum Frame {
        case object(keys: Set<String>, expectingKey: Bool)
        case array
    }

    /// The first key that appears twice in one object, or `nil`.
    package static func first(in bytes: UnsafeRawBufferPointer) -> String? {
        var stack: [Frame] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let start = index + 1
                var escaped = false
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") {
                        escaped = true
                        index += 1
                    }
                    index += 1
                }
                guard index < bytes.count else { return nil }
                if case .object(var keys, true) = stack.last {
                    let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                    guard let key = escaped ? unescape(raw) : String(decoding: raw, as: UTF8.self) else { return nil }
                    if !keys.insert(key).inserted { return key }
                    stack[stack.count - 1] = .object(keys: keys, expectingKey: false)
                }
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], expectingKey: true))
            case UInt8(ascii: "["):
                stack.append(.array)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
            case UInt8(ascii: ","):
                if case .object(let keys, _) = stack.last { stack[stack.count - 1] = .object(keys: keys, expectingKey: true) }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The value of a JSON string's contents (between its quotes) holding escapes.
    private static func unescape(_ raw: UnsafeRawBufferPointer) -> String? {
        try? JSONDecoder().decode(String.self, from: Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]))
    }
}
