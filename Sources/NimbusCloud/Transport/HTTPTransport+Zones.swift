import Foundation
import NimbusWire

extension HTTPTransport {
    /// Every live zone of the transport's database, read page by page.
    ///
    /// The server answers a listing in pages of at most `ListZonesResponse.maximumLimit`
    /// zones; this follows each page's continuation until the last, so a database of 20,000
    /// zones is 20 requests and a complete list.
    ///
    /// For example:
    /// ```swift
    /// let names = try await transport.listZones().map(\.zoneID.zoneName)
    /// ```
    /// - Parameter pageSize: The zones asked for per request; `nil` takes the server's default.
    /// - Returns: The zones, ordered by name (then owner, in the shared database).
    /// - Throws: ``CloudError`` when a request fails, or `incompatibleServer` when the server
    ///   says more zones follow without saying where they start (or repeats a continuation).
    public func listZones(pageSize: Int? = nil) async throws -> [Zone] {
        let path = databasePath + "/zones"
        var query = ListZonesQuery(limit: pageSize)
        var zones: [Zone] = []
        var seen: Set<String> = []
        while true {
            let page = try decode(ListZonesResponse.self, try await call(.GET, path + query.queryString, body: nil), path: path)
            zones += page.zones
            guard page.moreComing else { return zones }
            guard let next = page.continuation, !page.zones.isEmpty, seen.insert(next).inserted else {
                throw CloudError(.incompatibleServer, "the server's zone listing at \(baseURL)\(path) says more zones follow but not where they start")
            }
            query.continuation = next
        }
    }
}
