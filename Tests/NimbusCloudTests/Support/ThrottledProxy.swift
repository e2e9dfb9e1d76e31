import Foundation
import Synchronization

/// A TCP proxy on loopback in front of a server: what clients send passes at a set rate (a
/// slow uplink), answers at full speed. Each connection gets two pumping threads.
final class ThrottledProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let stopped = Mutex(false)

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// - Parameters:
    ///   - upstreamPort: The server's port on 127.0.0.1.
    ///   - bytesPerSecond: The rate of the client-to-server direction.
    init(upstreamPort: Int, bytesPerSecond: Int) throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listening, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        // A small receive window, as on a slow link: the client's socket can't take the whole
        // body at once (on loopback the kernel would buffer megabytes), so what it has sent is
        // what has passed the link.
        var window: Int32 = 16 * 1024
        setsockopt(listening, SOL_SOCKET, SO_RCVBUF, &window, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, length) } }
        guard bound == 0, listen(listening, 16) == 0 else {
            close(listening)
            throw TestFailure("the proxy could not listen (errno \(errno))")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) } }
        listener = listening
        port = Int(UInt16(bigEndian: address.sin_port))
        let chunk = max(1, bytesPerSecond / 20)   // one chunk every 50 ms
        Thread.detachNewThread { [self] in
            while !stopped.withLock({ $0 }) {
                let client = accept(listening, nil, nil)
                guard client >= 0 else { return }
                let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                var upstream = Self.loopback(port: upstreamPort)
                let connected = withUnsafePointer(to: &upstream) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard connected == 0 else { close(client); close(server); continue }
                let done = Done()
                let finish: @Sendable () -> Void = {
                    if done.count.withLock({ $0 += 1; return $0 }) == 2 { close(client); close(server) }
                }
                Thread.detachNewThread { Self.pump(from: client, to: server, chunk: chunk, pause: 50_000); finish() }
                Thread.detachNewThread { Self.pump(from: server, to: client, chunk: 64 * 1024, pause: 0); finish() }
            }
        }
    }

    /// Stops accepting connections (open ones end with their peers).
    func stop() {
        guard !stopped.withLock({ stopped in defer { stopped = true }; return stopped }) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    /// The pumps of one connection that have ended.
    private final class Done: Sendable {
        let count = Mutex(0)
    }

    private static func pump(from source: Int32, to destination: Int32, chunk: Int, pause: useconds_t) {
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, chunk, 0) }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { shutdown(source, Int32(SHUT_RD)); return }
                sent += written
            }
            if pause > 0 { usleep(pause) }
        }
        shutdown(destination, Int32(SHUT_WR))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
