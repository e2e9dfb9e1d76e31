import Foundation
import NimbusWire

/// Checks a modify batch before storage sees it: limits, names, duplicates, asset references.
/// Every failing item is listed in one error.
enum ModifyValidator {
    /// The latest HLC reading accepted when the server's clock reads `now` (ms since 1970):
    /// `skew` ahead of it, with any logical counter (HLC time is `ms << 16 | counter`).
    static func latestStamp(now: Int64, skew: Duration) -> Int64 {
        let skewMilliseconds = skew.components.seconds * 1000 + skew.components.attoseconds / 1_000_000_000_000_000
        let (limit, overflow) = now.addingReportingOverflow(skewMilliseconds)
        guard !overflow, limit < Int64.max >> 16 else { return Int64.max }
        return limit << 16 | 0xFFFF
    }

    /// - Parameters:
    ///   - request: The batch, names already in NFC.
    ///   - bodyBytes: The body's size, to skip measuring records of small bodies.
    ///   - latestStamp: The latest HLC time a field or deletion may carry (``latestStamp(now:skew:)``).
    /// - Throws: `limitExceeded` for too many items or oversize records; `invalidArguments`
    ///   for bad names, duplicates, malformed asset references or stamps from the future.
    static func validate(_ request: ModifyRecordsRequest, bodyBytes: Int = Int.max, latestStamp: Int64 = Int64.max) throws(WireError) {
        let count = request.saves.count + request.deletions.count
        if count > ModifyRecordsRequest.maximumItems {
            throw WireError(.limitExceeded, "The batch has \(count) items; a batch holds at most \(ModifyRecordsRequest.maximumItems). Split it.")
        }
        if count == 0 {
            throw WireError(.invalidArguments, "The batch has no saves and no deletions.")
        }
        var problems: [ItemError] = []
        var oversize: [ItemError] = []
        var seen = Set<String>()
        let encoder = JSONEncoder()
        let names = request.saves.map(\.recordName) + request.deletions.map(\.recordName)
        for name in names {
            if let problem = NameRules.problem(with: name) {
                problems.append(ItemError(name: name, code: .invalidArguments, message: "The record name \(problem)."))
            } else if !seen.insert(name).inserted {
                problems.append(ItemError(name: name, code: .invalidArguments, message: "The record '\(name)' appears more than once in the batch."))
            }
        }
        for deletion in request.deletions where deletion.stamp.time > latestStamp {
            problems.append(futureStamp(deletion.recordName, deletion.stamp, latestStamp: latestStamp))
        }
        for record in request.saves {
            if let (key, field) = record.fields.filter({ $0.value.stamp.time > latestStamp }).min(by: { $0.key < $1.key }) {
                problems.append(futureStamp(record.recordName, field.stamp, key: key, latestStamp: latestStamp))
            }
            if let problem = NameRules.problem(with: record.recordType) {
                problems.append(ItemError(name: record.recordName, code: .invalidArguments, message: "The record type \(problem)."))
            }
            for key in record.fields.keys where NameRules.problem(with: key) != nil {
                problems.append(ItemError(name: record.recordName, code: .invalidArguments, message: "The field key '\(key)' \(NameRules.problem(with: key)!)."))
            }
            for (key, field) in record.fields.sorted(by: { $0.key < $1.key }) {
                for reference in field.value.map(recordReferences) ?? [] {
                    guard let problem = NameRules.problem(with: reference.recordName) else { continue }
                    problems.append(ItemError(
                        name: record.recordName, code: .invalidArguments,
                        message: "The reference in field '\(key)' names a record that \(problem); record names are 1 to \(NameRules.maximumLength) bytes."))
                }
            }
            for asset in record.assetReferences where !isChecksum(asset.checksum) || asset.size < 0 {
                problems.append(ItemError(name: record.recordName, code: .invalidArguments, message: "The asset reference '\(asset.checksum)' is not a lowercase hexadecimal SHA-256 with a size."))
            }
            // A record cannot be larger than the body that carried it.
            guard bodyBytes > ModifyRecordsRequest.maximumRecordBytes else { continue }
            let size = (try? encoder.encode(record).count) ?? Int.max
            if size > ModifyRecordsRequest.maximumRecordBytes {
                oversize.append(ItemError(
                    name: record.recordName, code: .limitExceeded,
                    message: "The record is \(size) bytes; a record holds at most \(ModifyRecordsRequest.maximumRecordBytes). Move large values to assets."))
            }
        }
        if !problems.isEmpty {
            throw WireError(.invalidArguments, summary(problems), itemErrors: problems)
        }
        if !oversize.isEmpty {
            throw WireError(.limitExceeded, summary(oversize), itemErrors: oversize)
        }
    }

    /// A stamp later than the server's clock allows: it would win every merge until the
    /// device's clock caught up.
    private static func futureStamp(_ name: String, _ stamp: HLCStamp, key: String? = nil, latestStamp: Int64) -> ItemError {
        let aheadSeconds = Double((stamp.time >> 16) - (latestStamp >> 16)) / 1000
        let subject = key.map { "The field '\($0)' is stamped" } ?? "The deletion is stamped"
        return ItemError(
            name: name, code: .invalidArguments,
            message: "\(subject) \(String(format: "%.0f", aheadSeconds)) s beyond the clock-skew bound ahead of the server's clock (HLC time \(stamp.time) from device '\(stamp.device)'). Correct the device's clock; HLC time is milliseconds << 16 | counter.")
    }

    /// The record references a value holds, including those inside lists.
    static func recordReferences(_ value: FieldValue) -> [RecordReference] {
        switch value {
        case .reference(let reference): [reference]
        case .list(let values): values.flatMap(recordReferences)
        default: []
        }
    }

    static func isChecksum(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func summary(_ items: [ItemError]) -> String {
        let listed = items.prefix(5).map { "'\($0.name)': \($0.message)" }.joined(separator: " ")
        return "\(items.count) item(s) are invalid. \(listed)"
    }
}
