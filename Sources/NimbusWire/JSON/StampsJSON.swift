import Foundation

/// The JSON of a set of field stamps (`{"title": {"device": …, "time": …}, …}`), as a
/// device's outbox keeps them, written and read without `Codable`: the same bytes as
/// `JSONEncoder` with `.sortedKeys`, and for reading, `nil` whenever `JSONDecoder` must decide.
package enum StampsJSON {
    /// The stamps' JSON.
    package static func encode(_ stamps: [String: HLCStamp]) throws -> Data {
        var writer = WireJSONWriter(capacity: 32 + stamps.count * 48)
        try writer.object(stamps)
        return writer.data
    }

    /// The stamps the JSON holds, or `nil` when `JSONDecoder` must decide.
    package static func read(_ bytes: UnsafeRawBufferPointer) -> [String: HLCStamp]? {
        WireJSONReader.read(bytes) { reader in
            var stamps: [String: HLCStamp] = [:]
            let ok = reader.object { reader, key in
                guard stamps[key] == nil, let stamp = reader.hlcStamp() else { return false }
                stamps[key] = stamp
                return true
            }
            return ok ? stamps : nil
        }
    }
}

extension Record: WireJSONReadable {
    package static func readJSON(_ bytes: UnsafeRawBufferPointer) -> Record? {
        WireJSONReader.read(bytes) { $0.record() }
    }
}
