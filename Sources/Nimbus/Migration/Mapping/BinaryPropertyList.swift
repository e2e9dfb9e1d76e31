import Foundation

/// A reader of binary property lists (`bplist00`) that keeps keyed-archive UIDs, which
/// Foundation's reader on Linux does not hand back: the form `NSKeyedArchiver` writes and
/// Xcode stores expressions in (`valueexpressiondata` of a mapping model).
enum BinaryPropertyList {
    /// A decoded value.
    indirect enum Value: Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case date(Date)
        case data(Data)
        case string(String)
        /// A keyed archive's reference to an object in `$objects`.
        case uid(Int)
        case array([Value])
        case dictionary([String: Value])
    }

    /// Parses a whole binary property list.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidArgument`` for anything malformed.
    static func parse(_ data: Data) throws -> Value {
        let bytes = [UInt8](data)
        func bad(_ what: String) -> NimbusError { NimbusError(.invalidArgument, "malformed binary property list: \(what)") }
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { throw bad("no bplist00 header") }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        func integer(at position: Int, size: Int) throws -> Int {
            guard size > 0, size <= 8, position >= 0, position + size <= bytes.count else { throw bad("an integer out of bounds") }
            var value = 0
            for i in 0..<size { value = value << 8 | Int(bytes[position + i]) }
            return value
        }
        let objectCount = try integer(at: trailer + 8, size: 8)
        let topObject = try integer(at: trailer + 16, size: 8)
        let tableOffset = try integer(at: trailer + 24, size: 8)
        guard objectCount > 0, objectCount < bytes.count, topObject < objectCount else { throw bad("a bad trailer") }
        let offsets = try (0..<objectCount).map { try integer(at: tableOffset + $0 * offsetSize, size: offsetSize) }

        var depth = 0
        func object(_ index: Int) throws -> Value {
            guard index >= 0, index < offsets.count else { throw bad("an object reference out of range") }
            depth += 1
            defer { depth -= 1 }
            guard depth < 512 else { throw bad("objects nested too deeply") }
            var position = offsets[index]
            guard position < bytes.count else { throw bad("an object offset out of bounds") }
            let marker = bytes[position]
            let high = marker >> 4, low = Int(marker & 0x0F)
            position += 1
            func count() throws -> Int {
                guard low == 0x0F else { return low }
                guard position < bytes.count, bytes[position] >> 4 == 0x1 else { throw bad("a bad length") }
                let size = 1 << Int(bytes[position] & 0x0F)
                let value = try integer(at: position + 1, size: size)
                position += 1 + size
                return value
            }
            func slice(_ length: Int) throws -> ArraySlice<UInt8> {
                guard length >= 0, position + length <= bytes.count else { throw bad("data out of bounds") }
                return bytes[position..<position + length]
            }
            switch high {
            case 0x0:
                switch low {
                case 0x8: return .bool(false)
                case 0x9: return .bool(true)
                default: return .null
                }
            case 0x1:
                let size = 1 << low
                let raw = try integer(at: position, size: size)
                return .integer(size == 8 ? Int64(bitPattern: UInt64(UInt(bitPattern: raw))) : Int64(raw))
            case 0x2:
                let size = 1 << low
                let raw = UInt64(UInt(bitPattern: try integer(at: position, size: size)))
                return .real(size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw))
            case 0x3:
                let raw = UInt64(UInt(bitPattern: try integer(at: position, size: 8)))
                return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: raw)))
            case 0x4: return .data(Data(try slice(try count())))
            case 0x5: return .string(String(decoding: try slice(try count()), as: UTF8.self))
            case 0x6:
                let units = try count()
                let raw = try slice(units * 2)
                let scalars = stride(from: raw.startIndex, to: raw.endIndex, by: 2).map { UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1]) }
                return .string(String(decoding: scalars, as: UTF16.self))
            case 0x8: return .uid(try integer(at: position, size: low + 1))
            case 0xA:
                let n = try count()
                let start = position
                return .array(try (0..<n).map { try object(try integer(at: start + $0 * referenceSize, size: referenceSize)) })
            case 0xD:
                let n = try count()
                let start = position
                var result: [String: Value] = [:]
                for i in 0..<n {
                    guard case let .string(key) = try object(try integer(at: start + i * referenceSize, size: referenceSize)) else {
                        throw bad("a dictionary key that is not a string")
                    }
                    result[key] = try object(try integer(at: start + (n + i) * referenceSize, size: referenceSize))
                }
                return .dictionary(result)
            default:
                throw bad("unknown object marker 0x\(String(marker, radix: 16))")
            }
        }
        return try object(topObject)
    }
}
