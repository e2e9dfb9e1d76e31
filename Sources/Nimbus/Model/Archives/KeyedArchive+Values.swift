import Foundation

extension KeyedArchive {
    /// Decodes the archive's root as Swift values, as `NSKeyedUnarchiver` with secure coding
    /// does: every object's class must be in `allowedClasses` (strings, numbers and data
    /// kept inline count as `NSString`, `NSNumber` and `NSData`). Strings, numbers (`Int64`,
    /// `Double`, `Bool`), dates, data, arrays, dictionaries (`[String: Any]`, or
    /// `[AnyHashable: Any]` for other keys), sets (`Set<AnyHashable>`), URLs, UUIDs,
    /// `NSNull` (nil), colors (``ArchivedColor``) and attributed strings
    /// (``ArchivedAttributedString``).
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/typeMismatch`` naming a class that is not
    ///   allowed or not known; ``NimbusError/Code-swift.struct/invalidArgument`` for a
    ///   malformed archive.
    func value(allowedClasses: Set<String>?) throws -> Any? {
        var decoder = ArchiveValueDecoder(archive: self, allowed: allowedClasses)
        return try decoder.decode(.uid(root))
    }
}

/// Walks a keyed archive's object graph into Swift values.
struct ArchiveValueDecoder {
    let archive: KeyedArchive
    let allowed: Set<String>?
    private var depth = 0
    /// Attribute values of an attributed string may be of any class (fonts, paragraph
    /// styles): as Foundation's own secure decoding of attributed strings allows.
    private var lenient = 0

    init(archive: KeyedArchive, allowed: Set<String>?) {
        self.archive = archive
        self.allowed = allowed
    }

    /// Mutable and immutable classes are allowed together.
    static func family(_ name: String) -> String {
        name.replacingOccurrences(of: "NSMutable", with: "NS")
    }

    private func check(_ name: String) throws {
        guard lenient == 0, let allowed else { return }
        let allowedFamilies = Set(allowed.map(Self.family))
        guard allowedFamilies.contains(Self.family(name)) else {
            throw NimbusError(.typeMismatch, "the archive holds a \(name), which is not among the classes allowed here (\(allowed.sorted().joined(separator: ", "))); register the transformer with ArchiveTransformers.register(_:allowedClasses:) to allow it")
        }
    }

    mutating func decode(_ value: BinaryPropertyList.Value?) throws -> Any? {
        depth += 1
        defer { depth -= 1 }
        guard depth < 256 else { throw NimbusError(.invalidArgument, "a keyed archive nests objects too deeply") }
        switch try archive.resolve(value) {
        case nil, .null?: return nil
        case let .bool(v)?: try check("NSNumber"); return v
        case let .integer(v)?: try check("NSNumber"); return v
        case let .real(v)?: try check("NSNumber"); return v
        case let .date(v)?: try check("NSDate"); return v
        case let .data(v)?: try check("NSData"); return v
        case let .string(v)?: try check("NSString"); return v
        case .uid?: return nil
        case .array?: throw NimbusError(.invalidArgument, "a keyed archive holds a bare array where an object belongs")
        case let .dictionary(fields)?:
            let name = try archive.className(fields)
            return try object(name, fields)
        }
    }

    private mutating func list(_ value: BinaryPropertyList.Value?) throws -> [Any?] {
        guard case let .array(items)? = value else { return [] }
        return try items.map { try decode($0) }
    }

    private mutating func object(_ name: String, _ fields: [String: BinaryPropertyList.Value]) throws -> Any? {
        switch Self.family(name) {
        case "NSString":
            try check(name)
            return try decode(fields["NS.string"]) ?? ""
        case "NSData":
            try check(name)
            return try decode(fields["NS.data"]) ?? Data()
        case "NSDate":
            try check(name)
            guard case let .real(t)? = try archive.resolve(fields["NS.time"]) else { return nil }
            return Date(timeIntervalSinceReferenceDate: t)
        case "NSNull":
            try check(name)
            return nil
        case "NSArray", "NSOrderedSet":
            try check(name)
            return try list(fields["NS.objects"]).map { $0 ?? NSNull() }
        case "NSSet":
            try check(name)
            var set = Set<AnyHashable>()
            for item in try list(fields["NS.objects"]) {
                guard let hashable = item as? AnyHashable else {
                    throw NimbusError(.typeMismatch, "a set in the archive holds a \(item.map { "\(type(of: $0))" } ?? "nil"), which cannot be a set member")
                }
                set.insert(hashable)
            }
            return set
        case "NSDictionary":
            try check(name)
            let keys = try list(fields["NS.keys"]), values = try list(fields["NS.objects"])
            guard keys.count == values.count else { throw NimbusError(.invalidArgument, "an archived dictionary has \(keys.count) keys and \(values.count) values") }
            if keys.allSatisfy({ $0 is String }) {
                var result: [String: Any] = [:]
                for (key, value) in zip(keys, values) { result[key as! String] = value ?? NSNull() }
                return result
            }
            var result: [AnyHashable: Any] = [:]
            for (key, value) in zip(keys, values) {
                guard let key = key as? AnyHashable else { throw NimbusError(.typeMismatch, "an archived dictionary has a key that cannot be hashed") }
                result[key] = value ?? NSNull()
            }
            return result
        case "NSURL":
            try check(name)
            guard let relative = try decode(fields["NS.relative"]) as? String else { return nil }
            let base = try decode(fields["NS.base"]) as? URL
            guard let url = URL(string: relative, relativeTo: base) else {
                throw NimbusError(.invalidArgument, "an archived URL \"\(relative)\" cannot be read")
            }
            return base == nil ? url : url.absoluteURL
        case "NSUUID":
            try check(name)
            guard case let .data(bytes)? = try archive.resolve(fields["NS.uuidbytes"]), bytes.count == 16 else {
                throw NimbusError(.invalidArgument, "an archived UUID does not hold 16 bytes")
            }
            return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case "UIColor", "NSColor":
            try check(name)
            return try color(fields)
        case "NSAttributedString":
            try check(name)
            return try attributedString(fields)
        default:
            guard lenient > 0 else {
                if let allowed, !allowed.map(Self.family).contains(Self.family(name)) { try check(name) }
                throw NimbusError(.typeMismatch, "the archive holds a \(name), which Nimbus cannot decode; register a Codable type with ValueTransformers under the attribute's transformer name")
            }
            var decoded: [String: Any] = [:]
            for (key, field) in fields where key != "$class" { decoded[key] = (try? decode(field)) ?? nil }
            return ArchivedObject(className: name, fields: decoded)
        }
    }

    /// `UIColor` (`UIRed`… or `UIWhite`) and `NSColor` (`NSRGB` or `NSWhite`: ASCII
    /// numbers separated by spaces).
    private func color(_ fields: [String: BinaryPropertyList.Value]) throws -> ArchivedColor {
        func number(_ key: String) throws -> Double? {
            switch try archive.resolve(fields[key]) {
            case let .real(v)?: v
            case let .integer(v)?: Double(v)
            default: nil
            }
        }
        if let red = try number("UIRed"), let green = try number("UIGreen"), let blue = try number("UIBlue") {
            return ArchivedColor(red: red, green: green, blue: blue, alpha: try number("UIAlpha") ?? 1)
        }
        if let white = try number("UIWhite") {
            return ArchivedColor(red: white, green: white, blue: white, alpha: try number("UIAlpha") ?? 1)
        }
        func components(_ key: String) throws -> [Double]? {
            guard case let .data(bytes)? = try archive.resolve(fields[key]) else { return nil }
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            return text.split(separator: " ").compactMap { Double($0) }
        }
        if let rgb = try components("NSRGB"), rgb.count >= 3 {
            return ArchivedColor(red: rgb[0], green: rgb[1], blue: rgb[2], alpha: rgb.count > 3 ? rgb[3] : 1)
        }
        if let white = try components("NSWhite"), let w = white.first {
            return ArchivedColor(red: w, green: w, blue: w, alpha: white.count > 1 ? white[1] : 1)
        }
        throw NimbusError(.typeMismatch, "an archived color is not in an RGB or grayscale color space; Nimbus keeps colors as RGBA components")
    }

    /// `NSString` and `NSAttributes` (one run), or `NSAttributeInfo` (run lengths and
    /// attribute indexes, as variable-length integers) with an array of attributes.
    private mutating func attributedString(_ fields: [String: BinaryPropertyList.Value]) throws -> ArchivedAttributedString {
        guard let string = try decode(fields["NSString"]) as? String else {
            throw NimbusError(.invalidArgument, "an archived attributed string has no string")
        }
        lenient += 1
        defer { lenient -= 1 }
        let length = string.utf16.count
        let attributes = try decode(fields["NSAttributes"])
        guard case let .data(info)? = try archive.resolve(fields["NSAttributeInfo"]) else {
            let single = attributes as? [String: Any] ?? [:]
            return ArchivedAttributedString(string: string, runs: length == 0 && single.isEmpty ? [] : [.init(range: 0..<length, attributes: single)])
        }
        let table = (attributes as? [Any]) ?? []
        var bytes = info[...]
        func varint() throws -> Int {
            var value = 0, shift = 0
            while let byte = bytes.popFirst() {
                value |= Int(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
                guard shift < 63 else { break }
            }
            throw NimbusError(.invalidArgument, "an archived attributed string has malformed run information")
        }
        var runs: [ArchivedAttributedString.Run] = [], start = 0
        while !bytes.isEmpty {
            let count = try varint(), index = try varint()
            guard index < table.count, start + count <= length else {
                throw NimbusError(.invalidArgument, "an archived attributed string's runs do not fit its string")
            }
            runs.append(.init(range: start..<start + count, attributes: table[index] as? [String: Any] ?? [:]))
            start += count
        }
        return ArchivedAttributedString(string: string, runs: runs)
    }
}
