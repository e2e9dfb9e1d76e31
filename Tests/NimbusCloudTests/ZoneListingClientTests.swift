import Foundation
import NimbusCloud
import NimbusWire
import Testing

/// The HTTP transport lists a database's zones completely, however many pages the server
/// answers in (decision server-0017).
@Suite("Zone listing through the transport", .serialized)
struct ZoneListingClientTests {
    @Test("20,000 zones are listed whole, in order, in pages of at most 1000")
    func twentyThousand() async throws {
        let server = try await InProcessServer.start(devices: 1)
        do {
            let names = (0..<20_000).map { "zone-" + String(format: "%05d", $0) }
            try await server.createZones(names.shuffled())
            let transport = HTTPTransport(options: CloudContainerOptions(
                serverURL: server.url, containerIdentifier: "app", token: server.tokens[0]))
            let before = server.responses(status: 200)
            let zones = try await transport.listZones()
            #expect(zones.map(\.zoneID.zoneName) == names)
            // One request per page of 1000: the server never sent the whole list at once.
            #expect(server.responses(status: 200) - before == 20)
            let small = try await transport.listZones(pageSize: 3000)
            #expect(small.count == 20_000)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
