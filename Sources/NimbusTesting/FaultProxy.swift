import Foundation
import Synchronization

/// A loopback HTTP/WebSocket proxy that sits between devices and a sync server and, from a
/// seed, drops, delays, duplicates and reorders requests and answers, answers with server
/// errors, holds requests as a dead server would, and cuts WebSockets.
///
/// Devices point their server URL at ``url``; the proxy forwards to `127.0.0.1:<port>` for one
/// of `upstreamPorts` in turn (several server processes on one database behind a load
/// balancer), each of which may be stopped and restarted underneath it (a connection to a
/// stopped server is cut, as a load balancer with no backend would).
///
/// ```swift
/// let proxy = try FaultProxy(upstreamPorts: [server.port], seed: 7)
/// proxy.faultsEnabled = true        // off: a plain pass-through
/// // … devices sync through proxy.url …
/// print(proxy.injectedFaults)       // what was done, per kind
/// ```
///
/// The n-th request (or WebSocket) the proxy sees gets the fault that the seed and n decide,
/// so a seed replays the same schedule of faults; which request is n-th depends on the
/// timing of the processes behind it.
public final class FaultProxy: @unchecked Sendable {
    /// What the proxy may do to a request.
    public enum Fault: String, Sendable, CaseIterable {
        /// Forwarded untouched.
        case pass
        /// Held 10–400 ms before it is forwarded.
        case delayRequest
        /// Forwarded; the answer is held 10–400 ms.
        case delayResponse
        /// Never forwarded; the connection is cut.
        case dropRequest
        /// Forwarded and applied; the answer is lost (the connection is cut).
        case dropResponse
        /// Forwarded twice in a row; the second answer is returned.
        case duplicate
        /// Forwarded, answered, and sent again 100–1500 ms later (a stale copy arriving late).
        case replayLater
        /// Held until a later request has passed (or 1 s), so that it arrives after it.
        case reorder
        /// Answered 503 `serviceUnavailable` without reaching the server.
        case unavailable
        /// Forwarded and applied, then answered 503 (a gateway failing after the backend).
        case unavailableAfterApply
        /// Answered 429 `requestRateLimited` with a short `retryAfter` (0.05–0.5 s).
        case rateLimited
        /// Answered 429 with a `retryAfter` longer than the transport waits (8 s).
        case rateLimitedLong
        /// Held 1–3 s without an answer, then cut (a server that stopped answering).
        case timeout
        /// Forwarded; half of the answer is sent, then the connection is cut.
        case truncateResponse
    }

    /// How likely each fault is; the rest of the probability passes requests untouched.
    public struct Weights: Sendable {
        public var weights: [Fault: Double]
        /// How likely a WebSocket is cut 50–2000 ms after it opens.
        public var cutWebSocket: Double

        public init(_ weights: [Fault: Double], cutWebSocket: Double = 0.7) {
            self.weights = weights
            self.cutWebSocket = cutWebSocket
        }

        /// Every fault at a few percent each (about 40% of requests faulted in all).
        public static let standard = Weights([
            .delayRequest: 0.05, .delayResponse: 0.05, .dropRequest: 0.03, .dropResponse: 0.04, .duplicate: 0.03,
            .replayLater: 0.03, .reorder: 0.04, .unavailable: 0.03, .unavailableAfterApply: 0.03, .rateLimited: 0.03,
            .rateLimitedLong: 0.01, .timeout: 0.02, .truncateResponse: 0.02,
        ])
    }

    /// The proxy's URL (`http://127.0.0.1:<port>`).
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    public let port: Int
    public let seed: UInt64
    public let weights: Weights
    private let upstreamPorts: [Int]
    private let listener: ProxySocket

    private struct State {
        var enabled = false
        var requests = 0
        var counts: [String: Int] = [:]
        var open: [Int32: ProxySocket] = [:]
        var stopped = false
    }
    private let state = Mutex(State())
    private let passed = NSCondition()

    /// Starts a proxy to the servers on `127.0.0.1:<upstreamPorts>` (faults off until
    /// ``faultsEnabled`` is set).
    /// - Throws: ``FaultProxyError`` when it cannot listen.
    public init(upstreamPorts: [Int], seed: UInt64, weights: Weights = .standard) throws {
        precondition(!upstreamPorts.isEmpty, "the fault proxy needs a server to forward to")
        self.upstreamPorts = upstreamPorts
        self.seed = seed
        self.weights = weights
        (listener, port) = try ProxySocket.listen()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Whether faults are injected; off, the proxy forwards everything untouched.
    public var faultsEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    /// How many times each fault (and `cutWebSocket`) was injected so far.
    public var injectedFaults: [String: Int] { state.withLock { $0.counts } }

    /// Stops listening and cuts every open connection.
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            for socket in state.open.values { socket.shutdownBoth() }
            return !state.stopped
        }
        guard first else { return }
        listener.shutdownBoth()
        listener.close()
    }

    deinit { stop() }

    // MARK: Connections

    private func acceptLoop() {
        while true {
            guard let client = listener.accept() else {
                // EINTR, ECONNABORTED, EMFILE…: keep listening unless the proxy was stopped.
                let stopped = state.withLock { state in
                    if !state.stopped { state.counts["acceptError", default: 0] += 1 }
                    return state.stopped
                }
                if stopped { return }
                usleep(1000)
                continue
            }
            guard register(client) else { client.close(); return }
            Thread.detachNewThread { [self] in
                serve(client)
                release(client)
            }
        }
    }

    private func register(_ socket: ProxySocket) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.open[socket.fd] = socket
            return true
        }
    }

    /// Forgets and closes a socket under the lock, so that ``stop()`` or a WebSocket cut never
    /// shuts down a descriptor number that was closed and reused since.
    private func release(_ socket: ProxySocket) {
        state.withLock { state in
            state.open.removeValue(forKey: socket.fd)
            socket.close()
        }
    }

    /// Shuts down a socket if it is still open.
    private func cut(_ socket: ProxySocket) {
        state.withLock { state in
            if state.open[socket.fd] === socket { socket.shutdownBoth() }
        }
    }

    /// Decides the fault for the next request: a function of the seed and the request's ordinal.
    private func nextDecision(webSocket: Bool) -> (index: Int, fault: Fault, cut: Bool, random: SplitMix) {
        state.withLock { state in
            state.requests += 1
            var random = SplitMix(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(state.requests))
            let roll = Double(random.next() % 1_000_000) / 1_000_000
            guard state.enabled else { return (state.requests, .pass, false, random) }
            if webSocket {
                let cut = roll < weights.cutWebSocket
                if cut { state.counts["cutWebSocket", default: 0] += 1 }
                return (state.requests, .pass, cut, random)
            }
            var total = 0.0
            for fault in Fault.allCases where fault != .pass {
                total += weights.weights[fault] ?? 0
                if roll < total {
                    state.counts[fault.rawValue, default: 0] += 1
                    return (state.requests, fault, false, random)
                }
            }
            return (state.requests, .pass, false, random)
        }
    }

    private func serve(_ client: ProxySocket) {
        client.setTimeout(120)
        while let request = client.readMessage(isResponse: false) {
            if request.header("upgrade")?.lowercased() == "websocket" {
                tunnel(client, request)
                return
            }
            let decision = nextDecision(webSocket: false)
            defer { passed.lock(); passed.broadcast(); passed.unlock() }
            guard handle(request, decision: decision, client: client) else { return }
            if request.header("connection")?.lowercased() == "close" { return }
        }
    }

    /// Performs one request under its fault; false when the client connection was cut.
    private func handle(_ request: HTTPMessage, decision: (index: Int, fault: Fault, cut: Bool, random: SplitMix), client: ProxySocket) -> Bool {
        var random = decision.random
        func milliseconds(_ range: ClosedRange<Int>) -> UInt32 { UInt32(range.lowerBound + Int(random.next() % UInt64(range.count))) * 1000 }
        switch decision.fault {
        case .pass: break
        case .delayRequest: usleep(milliseconds(10...400))
        case .dropRequest: return false
        case .unavailable:
            return client.write(HTTPMessage.error(status: 503, reason: "Service Unavailable", code: "serviceUnavailable",
                                                  message: "fault proxy: the service is unavailable").bytes)
        case .rateLimited, .rateLimitedLong:
            let wait = decision.fault == .rateLimited ? Double(milliseconds(50...500)) / 1_000_000 : 8
            return client.write(HTTPMessage.error(status: 429, reason: "Too Many Requests", code: "requestRateLimited",
                                                  message: "fault proxy: slow down", retryAfter: wait).bytes)
        case .timeout:
            usleep(milliseconds(1000...3000))
            return false
        case .reorder:
            // Wait until a request that came later has been answered, then go.
            passed.lock()
            let deadline = Date().addingTimeInterval(1)
            let start = state.withLock { $0.requests }
            while state.withLock({ $0.requests }) <= start, passed.wait(until: deadline) {}
            passed.unlock()
            usleep(milliseconds(20...200))
        default: break
        }
        if decision.fault == .duplicate { _ = forward(request, to: decision.index + 1) }
        guard let response = forward(request, to: decision.index) else { return false }
        switch decision.fault {
        case .dropResponse: return false
        case .unavailableAfterApply:
            return client.write(HTTPMessage.error(status: 503, reason: "Service Unavailable", code: "serviceUnavailable",
                                                  message: "fault proxy: the gateway failed after the server answered").bytes)
        case .truncateResponse:
            let bytes = response.bytes
            client.write(Array(bytes.prefix(max(1, bytes.count / 2))))
            return false
        case .delayResponse: usleep(milliseconds(10...400))
        case .replayLater:
            let delay = milliseconds(100...1500)
            Thread.detachNewThread { [self] in
                usleep(delay)
                _ = forward(request, to: decision.index + 1)
            }
        default: break
        }
        return client.write(response.bytes)
    }

    /// Sends a request to the server on a connection of its own and returns the answer, or
    /// nil when the server is down or cut the connection.
    private func forward(_ request: HTTPMessage, to ordinal: Int) -> HTTPMessage? {
        guard let upstream = ProxySocket.connect(port: upstreamPorts[ordinal % upstreamPorts.count], timeout: 60) else { return nil }
        defer { upstream.close() }
        guard upstream.write(request.setting("Connection", "close").bytes) else { return nil }
        return upstream.readMessage(isResponse: true)
    }

    /// Relays a WebSocket both ways, cutting it after 50–2000 ms when the seed says so.
    private func tunnel(_ client: ProxySocket, _ request: HTTPMessage) {
        var decision = nextDecision(webSocket: true)
        guard let upstream = ProxySocket.connect(port: upstreamPorts[decision.index % upstreamPorts.count], timeout: 3600) else { return }
        guard register(upstream) else { upstream.close(); return }
        defer { release(upstream) }
        client.setTimeout(3600)
        guard upstream.write(request.bytes) else { return }
        if !client.buffer.isEmpty { upstream.write(client.buffer); client.buffer.removeAll() }
        if decision.cut {
            let delay = UInt32(50 + Int(decision.random.next() % 1950)) * 1000
            Thread.detachNewThread { [self] in
                usleep(delay)
                cut(client)
                cut(upstream)
            }
        }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while let bytes = upstream.readSome(), client.write(bytes) {}
            client.shutdownBoth()
            done.signal()
        }
        while let bytes = client.readSome(), upstream.write(bytes) {}
        upstream.shutdownBoth()
        done.wait()
    }
}

/// SplitMix64: a small deterministic generator for fault schedules.
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
