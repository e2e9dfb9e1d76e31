import Foundation
import NIOCore

/// A request body as an async sequence of 64 KB buffers, so that the HTTP client pulls each
/// chunk only when the connection can take it (its idle write timeout then measures the
/// link's progress, not the whole transfer).
struct DataChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let data: Data
    var chunkSize = 64 * 1024
    /// Called as each chunk is taken, and when the body is all out.
    var onPull: @Sendable () -> Void = {}
    var onEnd: @Sendable () -> Void = {}

    struct AsyncIterator: AsyncIteratorProtocol {
        let data: Data
        let chunkSize: Int
        var offset: Int
        let onPull: @Sendable () -> Void
        let onEnd: @Sendable () -> Void

        mutating func next() async -> ByteBuffer? {
            guard offset < data.count else {
                onEnd()
                return nil
            }
            onPull()
            let end = Swift.min(offset + chunkSize, data.count)
            defer { offset = end }
            let start = data.startIndex + offset
            return ByteBuffer(bytes: data[start..<(data.startIndex + end)])
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(data: data, chunkSize: chunkSize, offset: 0, onPull: onPull, onEnd: onEnd)
    }
}
