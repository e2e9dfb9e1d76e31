import Foundation

/// Dates as the CLI prints and reads them: ISO 8601 in UTC with fractional seconds, as many
/// digits as it takes (3 to 9) to read back the same `Date`:
/// `2024-02-01T00:00:00.000Z`, `2026-11-27T21:30:05.123456Z`.
enum DateText {
    static func string(from date: Date) -> String {
        let time = date.timeIntervalSinceReferenceDate
        var whole = time.rounded(.down)
        let fraction = time - whole
        var text = ""
        for digits in 3...9 {
            let scale = pow(10.0, Double(digits))
            var units = (fraction * scale).rounded()
            var second = whole
            if units >= scale { units = 0; second += 1 }
            text = String(format: "%0\(digits)d", Int(units))
            if second + units / scale == time || digits == 9 { whole = second; break }
        }
        let formatter = ISO8601DateFormatter()
        let seconds = formatter.string(from: Date(timeIntervalSinceReferenceDate: whole))
        return String(seconds.dropLast()) + "." + text + "Z"
    }

    /// Reads an ISO 8601 date with or without fractional seconds (any digits; the first nine
    /// count), or a bare date (`2024-02-01`).
    static func date(from text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let match = text.firstMatch(of: #/^(.+T\d\d:\d\d:\d\d)\.(\d+)(Z|[+-]\d\d:?\d\d)$/#) {
            guard let whole = formatter.date(from: String(match.1) + String(match.3)) else { return nil }
            let digits = match.2.prefix(9)
            guard let units = UInt64(digits) else { return nil }
            return Date(timeIntervalSinceReferenceDate: whole.timeIntervalSinceReferenceDate + Double(units) / pow(10.0, Double(digits.count)))
        }
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}
