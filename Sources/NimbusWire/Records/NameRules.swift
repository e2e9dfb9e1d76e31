/// The rules that record, zone and container names follow.
///
/// A name is 1 to 255 bytes of UTF-8 with no `/`, `\`, control characters, and is not
/// `.` or `..`, so that it is safe in URL paths and file names.
///
/// For example:
/// ```swift
/// if let problem = NameRules.problem(with: "a/b") { print(problem) }
/// ```
public enum NameRules {
    /// The longest name, in UTF-8 bytes.
    public static let maximumLength = 255

    /// Describes why a name is invalid, or returns `nil` for a valid name.
    /// - Parameter name: The name to check.
    /// - Returns: A human-readable reason, or `nil`.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > maximumLength { return "is longer than \(maximumLength) bytes" }
        if name == "." || name == ".." { return "is a relative path component" }
        for scalar in name.unicodeScalars {
            if scalar == "/" || scalar == "\\" { return "contains a path separator" }
            if scalar.value < 0x20 || scalar.value == 0x7F { return "contains a control character" }
        }
        return nil
    }
}
