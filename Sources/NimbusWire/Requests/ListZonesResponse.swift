import Foundation

/// The answer to `GET …/databases/{database}/zones`: one page of the database's live zones.
///
/// A page holds at most ``maximumLimit`` zones (the `limit` query parameter asks for fewer).
/// When ``moreComing`` is `true`, ask again with `?continuation=` set to ``continuation``
/// for the next page; ``ListZonesQuery`` builds the query.
///
/// For example:
/// ```swift
/// var query = ListZonesQuery()
/// repeat {
///     let page = try decoder.decode(ListZonesResponse.self, from: try await get(path + query.queryString))
///     names += page.zones.map(\.zoneID.zoneName)
///     query.continuation = page.continuation
/// } while query.continuation != nil
/// ```
public struct ListZonesResponse: Codable, Hashable, Sendable {
    /// The most zones in one page, and the page size when the request names none.
    public static let maximumLimit = 1000

    /// The zones, ordered by name (and, in the shared database, by owner within a name).
    public var zones: [Zone]
    /// Whether more zones follow this page.
    public var moreComing: Bool
    /// Where the next page starts, present exactly when ``moreComing`` is `true`. Opaque:
    /// send it back unchanged as `?continuation=`.
    public var continuation: String?

    /// Creates a page.
    /// - Parameters:
    ///   - zones: The zones.
    ///   - moreComing: Whether more zones follow.
    ///   - continuation: Where the next page starts, when more follow.
    public init(zones: [Zone], moreComing: Bool = false, continuation: String? = nil) {
        self.zones = zones
        self.moreComing = moreComing
        self.continuation = continuation
    }

    private enum CodingKeys: String, CodingKey {
        case zones, moreComing, continuation
    }

    /// Decodes a page; an answer without `moreComing` (servers before paging) is the whole list.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        zones = try container.decode([Zone].self, forKey: .zones)
        moreComing = try container.decodeIfPresent(Bool.self, forKey: .moreComing) ?? false
        continuation = try container.decodeIfPresent(String.self, forKey: .continuation)
    }
}

/// The query of `GET …/databases/{database}/zones`: the page size and where the page starts.
///
/// For example:
/// ```swift
/// let path = databasePath + "/zones" + ListZonesQuery(limit: 200).queryString
/// ```
public struct ListZonesQuery: Hashable, Sendable {
    /// The most zones in the page (at most ``ListZonesResponse/maximumLimit``); `nil` asks
    /// for the server's default.
    public var limit: Int?
    /// The previous page's ``ListZonesResponse/continuation``, or `nil` for the first page.
    public var continuation: String?

    /// Creates a query.
    /// - Parameters:
    ///   - limit: The page size, or `nil`.
    ///   - continuation: Where the page starts, or `nil` for the first page.
    public init(limit: Int? = nil, continuation: String? = nil) {
        self.limit = limit
        self.continuation = continuation
    }

    /// The query string to append to the path: empty, or `?` followed by the parameters.
    public var queryString: String {
        var items: [String] = []
        if let limit { items.append("limit=\(limit)") }
        if let continuation {
            let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&+=?#"))
            items.append("continuation=\(continuation.addingPercentEncoding(withAllowedCharacters: allowed) ?? continuation)")
        }
        return items.isEmpty ? "" : "?" + items.joined(separator: "&")
    }
}
