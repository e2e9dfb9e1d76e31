import Foundation
import Hummingbird
@testable import NimbusServer
import NIOConcurrencyHelpers
import Testing

@Suite("Asset file I/O stays off the cooperative thread pool")
struct AssetStoreTests {
    /// The name of the thread running now (NIO names its thread pool threads `…TP-#<n>`).
    static func currentThreadName() -> String {
        Thread.current.name ?? ""
    }

    @Test("upload chunks are written on NIO's thread pool, not on the threads that run requests")
    func writesOnThreadPool() async throws {
        let root = NSTemporaryDirectory() + "nimbus-assets-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let threads = NIOLockedValueBox<[String]>([])
        let store = try AssetStore(root: root) { handle, data in
            threads.withLockedValue { $0.append(Self.currentThreadName()) }
            try handle.write(contentsOf: data)
        }
        for upload in 0..<4 {
            let received = try await store.receive(
                RequestBody(buffer: ByteBuffer(string: "upload \(upload)")), maximumBytes: 1 << 20, expectedChecksum: nil)
            try await store.keep(received)
            #expect(try await store.size(of: received.reference.checksum) == received.reference.size)
        }
        let names = threads.withLockedValue { $0 }
        #expect(names.count == 4)
        #expect(names.allSatisfy { $0.contains("TP-#") }, "\(names)")
    }
}
