/// Names a zone's incarnation in change tokens and change tags without telling anything about
/// other zones (decision server-0018).
///
/// Row ids count every zone created on the server, by every user: a token holding one showed
/// how many zones others made between two of yours. An incarnation is a random positive
/// 63-bit number drawn from the system's secure generator when the zone is created (again when
/// it is deleted and created again), so a token from an earlier incarnation is still told apart.
package enum ZoneIncarnation {
    /// A new incarnation.
    package static func random() -> Int64 {
        var generator = SystemRandomNumberGenerator()
        return Int64.random(in: 1...Int64.max, using: &generator)
    }
}
