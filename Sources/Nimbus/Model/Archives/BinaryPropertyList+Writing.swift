import Foundation

extension BinaryPropertyList {
    /// Writes a binary property list (`bplist00`) with keyed-archive UIDs, which
    /// Foundation's writer on Linux cannot write. Dictionaries are written in key order, so
    /// an equal value gives equal bytes.
    static func write(_ root: Value) -> Data {
        var objects: [[UInt8]] = []
        // Objects are numbered before their bodies are written, children after parents.
        var pending: [(Int, Value)] = []
        func reserve(_ value: Value) -> Int {
            objects.append([])
            pending.append((objects.count - 1, value))
            return objects.count - 1
        }
        // First count the objects, so references have a fixed size.
        func count(_ value: Value) -> Int {
            switch value {
            case let .array(items): 1 + items.reduce(0) { $0 + count($1) }
            case let .dictionary(fields): 1 + fields.reduce(0) { $0 + 1 + count($1.value) }
            default: 1
            }
        }
        let total = count(root)
        let referenceSize = total < 256 ? 1 : total < 65_536 ? 2 : 4
        func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
            (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
        }
        func header(_ marker: UInt8, _ length: Int) -> [UInt8] {
            guard length >= 15 else { return [marker << 4 | UInt8(length)] }
            return [marker << 4 | 0x0F] + integer(Int64(length))
        }
        func integer(_ v: Int64) -> [UInt8] {
            if v >= 0 && v < 1 << 8 { return [0x10, UInt8(v)] }
            if v >= 0 && v < 1 << 16 { return [0x11] + bigEndian(UInt64(v), size: 2) }
            if v >= 0 && v < 1 << 32 { return [0x12] + bigEndian(UInt64(v), size: 4) }
            return [0x13] + bigEndian(UInt64(bitPattern: v), size: 8)
        }
        _ = reserve(root)
        while !pending.isEmpty {
            let (index, value) = pending.removeFirst()
            var bytes: [UInt8]
            switch value {
            case .null: bytes = [0x00]
            case let .bool(v): bytes = [v ? 0x09 : 0x08]
            case let .integer(v): bytes = integer(v)
            case let .real(v): bytes = [0x23] + bigEndian(v.bitPattern, size: 8)
            case let .date(v): bytes = [0x33] + bigEndian(v.timeIntervalSinceReferenceDate.bitPattern, size: 8)
            case let .data(v): bytes = header(0x4, v.count) + [UInt8](v)
            case let .string(v):
                if v.utf8.allSatisfy({ $0 < 0x80 }) {
                    bytes = header(0x5, v.utf8.count) + Array(v.utf8)
                } else {
                    let units = Array(v.utf16)
                    bytes = header(0x6, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
                }
            case let .uid(v):
                let size = v < 1 << 8 ? 1 : v < 1 << 16 ? 2 : 4
                bytes = [0x80 | UInt8(size - 1)] + bigEndian(UInt64(v), size: size)
            case let .array(items):
                bytes = header(0xA, items.count)
                for item in items { bytes += bigEndian(UInt64(reserve(item)), size: referenceSize) }
            case let .dictionary(fields):
                let keys = fields.keys.sorted()
                bytes = header(0xD, keys.count)
                let keyReferences = keys.map { reserve(.string($0)) }
                let valueReferences = keys.map { reserve(fields[$0]!) }
                for reference in keyReferences + valueReferences { bytes += bigEndian(UInt64(reference), size: referenceSize) }
            }
            objects[index] = bytes
        }
        var data: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(data.count)
            data += object
        }
        let tableOffset = data.count
        let offsetSize = tableOffset < 256 ? 1 : tableOffset < 65_536 ? 2 : tableOffset < 1 << 32 ? 4 : 8
        for offset in offsets { data += bigEndian(UInt64(offset), size: offsetSize) }
        data += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        data += bigEndian(UInt64(objects.count), size: 8) + bigEndian(0, size: 8) + bigEndian(UInt64(tableOffset), size: 8)
        return Data(data)
    }
}
