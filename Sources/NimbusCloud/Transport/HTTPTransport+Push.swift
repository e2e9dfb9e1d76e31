import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NimbusWire

extension HTTPTransport {
    /// Push messages from the database's WebSocket (`…/databases/{db}/push`), until the
    /// socket closes or fails (the stream then finishes, with an error when it failed).
    public func pushMessages() -> AsyncThrowingStream<PushMessage, any Error> {
        var url = baseURL + databasePath + "/push"
        if url.hasPrefix("https://") { url = "wss://" + url.dropFirst("https://".count) }
        else if url.hasPrefix("http://") { url = "ws://" + url.dropFirst("http://".count) }
        let token = options.token
        let (stream, continuation) = AsyncThrowingStream<PushMessage, any Error>.makeStream()
        do { try options.checkTransportSecurity() } catch {
            continuation.finish(throwing: error)
            return stream
        }
        do {
            let task = Task {
                var headers = HTTPFields()
                headers[.authorization] = "Bearer \(token)"
                do {
                    _ = try await WebSocketClient.connect(
                        url: url, configuration: .init(additionalHeaders: headers), logger: Logger(label: "nimbus.cloud.push")
                    ) { inbound, _, _ in
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message,
                                  let push = try? JSONDecoder().decode(PushMessage.self, from: Data(text.utf8)) else { continue }
                            continuation.yield(push)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: CloudError(.network, "the push socket to \(url) failed: \(error)"))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return stream
    }
}
