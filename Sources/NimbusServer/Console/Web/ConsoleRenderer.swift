import Foundation
import Mustache

/// Renders the console's pages from ``ConsoleTemplates`` inside the layout.
struct ConsoleRenderer: Sendable {
    private let library: MustacheLibrary

    /// The navigation, in order: path and label.
    static let navigation: [(href: String, label: String)] = [
        ("/console", "Overview"), ("/console/users", "Users"), ("/console/zones", "Public zones"),
        ("/console/shares", "Shares"), ("/console/requests", "Requests"), ("/console/audit", "Audit log"),
    ]

    /// - Throws: A template that does not parse.
    init() throws {
        var library = MustacheLibrary()
        for (name, text) in ConsoleTemplates.all {
            try library.register(text, named: name)
        }
        self.library = library
    }

    /// A whole page.
    /// - Parameters:
    ///   - template: The page's template.
    ///   - title: The page's title (escaped).
    ///   - values: The template's values.
    ///   - session: The signed-in administrator; `nil` on the sign-in page.
    ///   - section: The navigation entry to mark as current.
    func page(_ template: String, title: String, values: [String: Any], session: ConsoleSessions.Session?, section: String? = nil) -> String {
        pageAround(library.render(values, withTemplate: template) ?? "", title: title, session: session, section: section)
    }

    /// A page around content already rendered (escaped) by a fragment.
    func pageAround(_ content: String, title: String, session: ConsoleSessions.Session?, section: String? = nil) -> String {
        var frame: [String: Any] = ["title": title, "content": content]
        if let session {
            frame["signedIn"] = true
            frame["csrf"] = session.csrf
            frame["administrator"] = session.userName
            frame["nav"] = Self.navigation.map { entry -> [String: Any] in
                ["href": entry.href, "label": entry.label, "current": entry.href == section]
            }
        }
        return library.render(frame, withTemplate: "layout") ?? ""
    }

    /// One fragment, without the layout.
    func fragment(_ template: String, values: [String: Any]) -> String {
        library.render(values, withTemplate: template) ?? ""
    }
}

/// How the console writes times and sizes.
enum ConsoleFormat {
    /// `2026-11-27 22:43:19 UTC`.
    static func time(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "never" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// `1.2 MB`.
    static func bytes(_ count: Int64?) -> String {
        guard let count else { return "default" }
        let units = ["bytes", "KB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) bytes" : String(format: "%.1f", value) + " " + units[unit]
    }
}
