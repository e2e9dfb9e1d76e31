import Foundation
import Synchronization

/// The registry of `Codable` types that transformable attributes store.
///
/// A transformable attribute names a transformer; register the Swift type under that
/// name once, before loading stores. For example:
///
/// ```swift
/// struct Palette: Codable { var colors: [String] }
/// ValueTransformers.register(Palette.self, as: "PaletteTransformer")
/// ```
///
/// Values are stored as JSON (sorted keys). An attribute without a registered transformer keeps its raw
/// `Data`.
public enum ValueTransformers {
    /// A registered type's encoder and decoder. They capture only the type (a metatype,
    /// immutable) and the shared JSON coders, so they are safe to call from any thread; the
    /// closures are not `@Sendable` because a generic metatype is not `Sendable` to the compiler.
    private struct Coder: @unchecked Sendable {
        let encode: (Any) throws -> Data
        let decode: (Data) throws -> Any
    }

    private static let registry = Mutex<[String: Coder]>([:])

    /// The JSON encoder of stored values: sorted keys, so an equal value always writes equal
    /// bytes (setting it again is no change, and devices agree on it); infinities and NaN as
    /// strings rather than failing.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    /// The JSON decoder of stored values (reads what ``encoder`` writes).
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    /// Registers a `Codable` type under a transformer name.
    public static func register<T: Codable & Sendable>(_ type: T.Type, as name: String) {
        registerCodable(type, as: name)
    }

    /// Registers a `Codable` type (values cross no thread here: each is encoded or decoded
    /// where it is used).
    package static func registerCodable<T: Codable>(_ type: T.Type, as name: String) {
        let coder = Coder(
            encode: { value in
                guard let typed = value as? T else {
                    throw NimbusError(.typeMismatch, "\(Swift.type(of: value)) is not \(T.self), the type registered as \(name)")
                }
                return try encoder.encode(typed)
            },
            decode: { data in try decoder.decode(T.self, from: data) }
        )
        registry.withLock { $0[name] = coder }
    }

    static func encode(_ value: Any, transformerName: String?) throws -> Data {
        guard let name = transformerName, let coder = registry.withLock({ $0[name] }) else {
            // Data is kept as given (already encoded bytes).
            if let data = value as? Data { return data }
            // Keyed archives (``ArchiveTransformers``), within the transformer's classes.
            if case let .some(allowed) = ArchiveTransformers.allowedClasses(for: transformerName) {
                let archive = try KeyedArchiver.archive(value)
                _ = try ArchiveTransformers.decode(archive, allowed: allowed)
                return archive
            }
            throw NimbusError(.typeMismatch, "no Codable type is registered for transformer \(transformerName ?? "(none)"); call ValueTransformers.register(_:as:)")
        }
        return try coder.encode(value)
    }

    static func decode(_ data: Data, transformerName: String?) throws -> Any {
        guard let name = transformerName, let coder = registry.withLock({ $0[name] }) else {
            if data.starts(with: Array("bplist00".utf8)), case let .some(allowed) = ArchiveTransformers.allowedClasses(for: transformerName) {
                return try ArchiveTransformers.decode(data, allowed: allowed) ?? NSNull()
            }
            return data
        }
        return try coder.decode(data)
    }
}
