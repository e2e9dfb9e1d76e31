import NIOConcurrencyHelpers

/// A token bucket per device token: `burst` requests at once, refilled at `perSecond`.
///
/// A rate of 0 (or less) means unlimited: every request is admitted and no bucket is kept.
/// (``ServerConfiguration/validate()`` refuses negative and non-finite rates before a server
/// starts; the limiter still never answers a wait that is not finite.)
///
/// For example:
/// ```swift
/// if let wait = limiter.admit(tokenID: 7, now: clock.now()) { throw rateLimited(retryAfter: wait) }
/// ```
package final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    private let perSecond: Double
    private let burst: Double
    private let buckets = NIOLockedValueBox<[Int64: Bucket]>([:])

    /// - Parameters:
    ///   - perSecond: The refill rate; 0 or less admits every request.
    ///   - burst: The bucket's size.
    package init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Takes one request from the token's bucket.
    /// - Returns: `nil` when admitted, else the seconds until a request will be.
    package func admit(tokenID: Int64, now: Int64) -> Double? {
        guard perSecond > 0, perSecond.isFinite else { return nil }
        return buckets.withLockedValue { buckets in
            var bucket = buckets[tokenID] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double(max(0, now - bucket.updated)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * perSecond)
            bucket.updated = now
            defer { buckets[tokenID] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return (1 - bucket.tokens) / perSecond
        }
    }
}
