import Foundation

/// Writes values as `NSKeyedArchiver` does (binary property list, `$archiver`,
/// `$objects`, `$top`), so that Core Data on Apple platforms reads what Nimbus stores in a
/// transformable attribute: the values ``KeyedArchive/value(allowedClasses:)`` reads.
struct KeyedArchiver {
    private var objects: [BinaryPropertyList.Value] = [.string("$null")]
    private var classes: [String: Int] = [:]

    /// The archive of one root value.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/typeMismatch`` for a value that is not
    ///   one of the Foundation values keyed archives hold.
    static func archive(_ value: Any) throws -> Data {
        var archiver = KeyedArchiver()
        let root = try archiver.encode(value)
        return BinaryPropertyList.write(.dictionary([
            "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(["root": .uid(root)]), "$objects": .array(archiver.objects),
        ]))
    }

    private static let superclasses: [String: [String]] = [
        "NSMutableArray": ["NSArray"], "NSMutableDictionary": ["NSDictionary"], "NSMutableSet": ["NSSet"],
    ]

    private mutating func classReference(_ name: String) -> BinaryPropertyList.Value {
        if let index = classes[name] { return .uid(index) }
        let chain = [name] + (Self.superclasses[name] ?? []) + ["NSObject"]
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        classes[name] = objects.count - 1
        return .uid(objects.count - 1)
    }

    private mutating func add(_ value: BinaryPropertyList.Value) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    /// An object of a class, its fields filled after its slot is taken (Foundation numbers
    /// the root 1).
    private mutating func object(_ className: String, _ fields: (inout KeyedArchiver) throws -> [String: BinaryPropertyList.Value]) rethrows -> Int {
        let index = add(.null)
        var body = try fields(&self)
        body["$class"] = classReference(className)
        objects[index] = .dictionary(body)
        return index
    }

    mutating func encode(_ value: Any?) throws -> Int {
        guard let value, !(value is NSNull) else { return 0 }
        switch value {
        case let v as String: return add(.string(v))
        case let v as Bool: return add(.bool(v))
        case let v as Double: return add(.real(v))
        case let v as Float: return add(.real(Double(v)))
        case let v as Data: return add(.data(v))
        case let v as Date: return object("NSDate") { _ in ["NS.time": .real(v.timeIntervalSinceReferenceDate)] }
        case let v as URL:
            return try object("NSURL") { archiver in ["NS.base": .uid(0), "NS.relative": .uid(try archiver.encode(v.absoluteString))] }
        case let v as UUID:
            return object("NSUUID") { _ in ["NS.uuidbytes": .data(withUnsafeBytes(of: v.uuid) { Data($0) })] }
        case let v as ArchivedColor:
            return object("UIColor") { _ in
                ["UIColorComponentCount": .integer(4), "UIRed": .real(v.red), "UIGreen": .real(v.green), "UIBlue": .real(v.blue), "UIAlpha": .real(v.alpha)]
            }
        case let v as ArchivedAttributedString:
            return try object("NSAttributedString") { archiver in
                var fields: [String: BinaryPropertyList.Value] = ["NSString": .uid(try archiver.encode(v.string))]
                if v.runs.count == 1, v.runs[0].range == 0..<v.string.utf16.count {
                    fields["NSAttributes"] = .uid(try archiver.encode(v.runs[0].attributes))
                } else if !v.runs.isEmpty {
                    var info: [UInt8] = []
                    func varint(_ n: Int) { var n = n; repeat { info.append(UInt8(n & 0x7F) | (n > 0x7F ? 0x80 : 0)); n >>= 7 } while n > 0 }
                    for (index, run) in v.runs.enumerated() { varint(run.range.count); varint(index) }
                    fields["NSAttributeInfo"] = .data(Data(info))
                    fields["NSAttributes"] = .uid(try archiver.encode(v.runs.map(\.attributes) as [Any]))
                }
                return fields
            }
        case let v as ArchivedObject:
            return try object(v.className) { archiver in
                try v.fields.mapValues { .uid(try archiver.encode($0)) }
            }
        case let v as [String: Any]:
            let keys = v.keys.sorted()
            return try object("NSDictionary") { archiver in
                ["NS.keys": .array(try keys.map { .uid(try archiver.encode($0)) }),
                 "NS.objects": .array(try keys.map { .uid(try archiver.encode(v[$0])) })]
            }
        case let v as Set<AnyHashable>:
            let items = v.map(\.base).sorted { "\($0)" < "\($1)" }
            return try object("NSSet") { archiver in ["NS.objects": .array(try items.map { .uid(try archiver.encode($0)) })] }
        case let v as [Any?]:
            return try object("NSArray") { archiver in ["NS.objects": .array(try v.map { .uid(try archiver.encode($0)) })] }
        case let v as [Any]:
            return try object("NSArray") { archiver in ["NS.objects": .array(try v.map { .uid(try archiver.encode($0)) })] }
        default:
            if let integer = PropertyValue.int64(from: value) { return add(.integer(integer)) }
            throw NimbusError(.typeMismatch, "a \(type(of: value)) cannot be kept in a keyed archive; use strings, numbers, dates, data, arrays, dictionaries, sets, URLs, UUIDs, ArchivedColor or ArchivedAttributedString, or register a Codable type with ValueTransformers")
        }
    }
}
