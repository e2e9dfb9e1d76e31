/// Small SVG charts drawn by the server: no script, no external library.
///
/// For example:
/// ```swift
/// let svg = Sparkline.line([1, 3, 2], label: "Requests per minute")
/// ```
package enum Sparkline {
    /// A line chart of values, left to right, scaled to the largest.
    /// - Parameters:
    ///   - values: The points.
    ///   - label: The chart's accessible name.
    /// - Returns: An `<svg>` element.
    package static func line(_ values: [Double], label: String, width: Int = 300, height: Int = 48) -> String {
        let peak = max(values.max() ?? 0, 1)
        let step = values.count > 1 ? Double(width) / Double(values.count - 1) : 0
        let points = values.enumerated().map { index, value in
            "\(format(Double(index) * step)),\(format(Double(height - 2) - value / peak * Double(height - 4)))"
        }.joined(separator: " ")
        return """
            <svg role="img" aria-label="\(escape(label))" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">\
            <rect width="\(width)" height="\(height)" fill="#f4f6f8"/>\
            <polyline fill="none" stroke="#0b3d91" stroke-width="2" points="\(points)"/></svg>
            """
    }

    /// Paired bars per minute: uploads above the axis in one colour, downloads below in another.
    package static func transfer(up: [Double], down: [Double], label: String, width: Int = 600, height: Int = 80) -> String {
        let peak = max((up + down).max() ?? 0, 1)
        let half = Double(height) / 2
        let barWidth = Double(width) / Double(max(up.count, 1))
        var bars = ""
        for index in up.indices {
            let x = format(Double(index) * barWidth)
            let upHeight = up[index] / peak * (half - 2)
            let downHeight = (index < down.count ? down[index] : 0) / peak * (half - 2)
            if upHeight > 0 {
                bars += "<rect x=\"\(x)\" y=\"\(format(half - upHeight))\" width=\"\(format(max(barWidth - 1, 1)))\" height=\"\(format(upHeight))\" fill=\"#0b5fa5\"/>"
            }
            if downHeight > 0 {
                bars += "<rect x=\"\(x)\" y=\"\(format(half))\" width=\"\(format(max(barWidth - 1, 1)))\" height=\"\(format(downHeight))\" fill=\"#a33b00\"/>"
            }
        }
        return """
            <svg role="img" aria-label="\(escape(label))" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">\
            <rect width="\(width)" height="\(height)" fill="#f4f6f8"/>\(bars)\
            <line x1="0" y1="\(format(half))" x2="\(width)" y2="\(format(half))" stroke="#444"/></svg>
            """
    }

    private static func format(_ value: Double) -> String {
        String(Double((value * 10).rounded()) / 10)
    }

    /// Escapes text for an attribute.
    package static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
