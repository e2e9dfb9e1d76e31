/// The console's Mustache templates, compiled into the binary: one file per page, each an
/// extension of this namespace. `{{name}}` escapes HTML; the only unescaped insertions
/// (`{{{…}}}`) are the rendered page inside the layout and SVG the server draws itself.
package enum ConsoleTemplates {
    /// Every template by name, as ``ConsoleRenderer`` registers them.
    static var all: [String: String] {
        [
            "layout": layout, "login": login, "overview": overview, "users": users, "user": user,
            "zones": zones, "records": records, "record": record, "schema": schema, "shares": shares,
            "requests": requests, "audit": audit, "confirm": confirm, "message": message,
        ]
    }
}
