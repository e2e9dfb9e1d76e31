import NIOConcurrencyHelpers

/// Bounds how fast one address may try tokens that are not valid: each address has a bucket
/// of `burst` failures refilled at `perSecond`; while it is empty, the address's requests are
/// answered `429` with a `Retry-After` of at most `1 / perSecond` seconds, before any
/// database lookup. Successful requests cost nothing, so a user who mistyped a token once is
/// never slowed.
///
/// Memory is bounded: past `maximumAddresses` tracked addresses, those whose bucket has
/// refilled are forgotten, and if none has, the oldest-updated ones are.
///
/// For example:
/// ```swift
/// let throttle = FailedAuthenticationThrottle(perSecond: 1, burst: 20)
/// if let wait = throttle.wait(address: "10.0.0.1", now: now) { throw tooManyFailures(wait) }
/// throttle.recordFailure(address: "10.0.0.1", now: now)
/// ```
package final class FailedAuthenticationThrottle: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    private let perSecond: Double
    private let burst: Double
    private let maximumAddresses: Int
    private let buckets = NIOLockedValueBox<[String: Bucket]>([:])

    /// - Parameters:
    ///   - perSecond: Failures an address earns back per second.
    ///   - burst: Failures an address may make at once.
    ///   - maximumAddresses: Addresses tracked at most.
    package init(perSecond: Double = 1, burst: Double = 20, maximumAddresses: Int = 10_000) {
        self.perSecond = perSecond
        self.burst = burst
        self.maximumAddresses = maximumAddresses
    }

    /// The seconds the address must wait before its next attempt, or `nil` when it may try.
    package func wait(address: String, now: Int64) -> Double? {
        buckets.withLockedValue { buckets in
            guard let bucket = buckets[address].map({ refilled($0, now: now) }) else { return nil }
            return bucket.tokens >= 1 ? nil : (1 - bucket.tokens) / perSecond
        }
    }

    /// Counts a failed authentication from the address.
    package func recordFailure(address: String, now: Int64) {
        buckets.withLockedValue { buckets in
            var bucket = buckets[address].map { refilled($0, now: now) } ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = max(0, bucket.tokens - 1)
            buckets[address] = bucket
            if buckets.count > maximumAddresses { prune(&buckets, now: now) }
        }
    }

    /// How many addresses are tracked now.
    package var trackedAddresses: Int { buckets.withLockedValue { $0.count } }

    private func refilled(_ bucket: Bucket, now: Int64) -> Bucket {
        let elapsed = Double(max(0, now - bucket.updated)) / 1000
        return Bucket(tokens: min(burst, bucket.tokens + elapsed * perSecond), updated: now)
    }

    private func prune(_ buckets: inout [String: Bucket], now: Int64) {
        buckets = buckets.filter { refilled($0.value, now: now).tokens < burst }
        if buckets.count > maximumAddresses {
            let keep = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(maximumAddresses / 2)
            buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }
}
