import Foundation
import Hummingbird
import NIOCore
import NimbusWire

/// JSON encoding and decoding of wire values for routes.
package enum JSONResponse {
    /// A response with a JSON body.
    package static func make<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        let buffer: ByteBuffer
        if let writable = value as? any WireJSONWritable {
            // Records and batches: the same bytes as below, several times faster.
            var writer = WireJSONWriter(capacity: 4096)
            try writable.write(to: &writer)
            buffer = ByteBuffer(bytes: writer.bytes)
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            buffer = ByteBuffer(bytes: try encoder.encode(value))
        }
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// Reads a request body of at most `limit` bytes and decodes it.
    /// - Throws: `limitExceeded` for a larger body; `invalidArguments` for malformed JSON, a key
    ///   repeated in one object, or wrong types.
    package static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        try await decodeCounting(type, from: request, limit: limit).value
    }

    /// Like ``decode(_:from:limit:)``, also returning the body's size in bytes.
    package static func decodeCounting<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> (value: T, bytes: Int) {
        let request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw WireError(.limitExceeded, "The request body is larger than \(limit) bytes. Split the batch.")
        } catch is NIOTooManyBytesError {
            throw WireError(.limitExceeded, "The request body is larger than \(limit) bytes. Split the batch.")
        }
        if let key = buffer.withUnsafeReadableBytes({ JSONDuplicateKeys.first(in: $0) }) {
            throw WireError(.invalidArguments, "The request body repeats the key '\(key.prefix(100))' in one object; each key may appear once.")
        }
        // Modify batches: a reader that declines anything unusual, so that JSONDecoder still
        // decides what is accepted and words the errors.
        if let readable = T.self as? any WireJSONReadable.Type,
            let value = buffer.withUnsafeReadableBytes({ readable.readJSON($0) }) as? T
        {
            return (value, buffer.readableBytes)
        }
        do {
            return (try JSONDecoder().decode(T.self, from: Data(buffer: buffer)), buffer.readableBytes)
        } catch let error as DecodingError {
            throw WireError(.invalidArguments, "The request body is not a valid \(T.self): \(describe(error))")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "the body" : codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "malformed JSON." : "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing."
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) should be \(type)."
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) should be \(type), not null."
        @unknown default:
            return "\(error)"
        }
    }
}
