import Foundation
import Synchronization

/// Transformers that keep keyed archives, as Core Data's `NSSecureUnarchiveFromData` does:
/// a transformable attribute with one of these names reads and writes `NSKeyedArchiver`
/// archives of Foundation values, within the transformer's allowed classes.
///
/// `NSSecureUnarchiveFromData` (and `NSSecureUnarchiveFromDataTransformer`) allow what
/// `NSSecureUnarchiveFromDataTransformer.allowedTopLevelClasses` does: `NSArray`,
/// `NSDictionary`, `NSSet`, `NSString`, `NSNumber`, `NSDate`, `NSData`, `NSURL`, `NSUUID`
/// and `NSNull`. An app's own subclass (for colors or attributed strings) is registered
/// under its name with its classes. For example:
///
/// ```swift
/// ArchiveTransformers.register("ColorTransformer", allowedClasses: ["UIColor"])
/// let tint = note.value(forKey: "tint") as? ArchivedColor
/// ```
///
/// A transformable attribute without a transformer name (Core Data's old default,
/// `NSKeyedUnarchiveFromData`) reads every class Nimbus knows. A ``ValueTransformers``
/// Codable type registered under the same name takes precedence (values stored as JSON).
public enum ArchiveTransformers {
    /// The classes `NSSecureUnarchiveFromDataTransformer` allows.
    public static let secureClasses: Set<String> = [
        "NSArray", "NSDictionary", "NSSet", "NSOrderedSet", "NSString", "NSNumber", "NSDate", "NSData", "NSURL", "NSUUID", "NSNull",
    ]

    private static let registry = Mutex<[String: Set<String>]>([
        "NSSecureUnarchiveFromData": secureClasses,
        "NSSecureUnarchiveFromDataTransformer": secureClasses,
        "NSSecureUnarchiveFromDataTransformerName": secureClasses,
    ])

    /// Names that decode any known class (Core Data's insecure unarchivers).
    static let legacyNames: Set<String> = ["NSKeyedUnarchiveFromData", "NSKeyedUnarchiveFromDataTransformerName"]

    /// Registers a transformer name (an `NSSecureUnarchiveFromDataTransformer` subclass) with
    /// the classes it allows, in addition to the secure transformer's.
    ///
    /// - Parameters:
    ///   - name: The attribute's `valueTransformerName` (`ColorTransformer`, `Module.ColorTransformer`).
    ///   - allowedClasses: Objective-C class names: `UIColor`, `NSColor`, `NSAttributedString`, …
    public static func register(_ name: String, allowedClasses: Set<String>) {
        registry.withLock { $0[name] = secureClasses.union(allowedClasses) }
    }

    /// The allowed classes of a transformer name: nil for "any class" (no name, or a legacy
    /// unarchiver); absent when the name keeps no keyed archives.
    static func allowedClasses(for name: String?) -> Set<String>?? {
        guard let name else { return .some(nil) }
        if legacyNames.contains(name) { return .some(nil) }
        return registry.withLock { registry in
            registry[name] ?? name.split(separator: ".").last.flatMap { registry[String($0)] }
        }.map { .some($0) }
    }

    /// Decodes a stored archive.
    static func decode(_ data: Data, allowed: Set<String>?) throws -> Any? {
        try KeyedArchive(data).value(allowedClasses: allowed)
    }
}
