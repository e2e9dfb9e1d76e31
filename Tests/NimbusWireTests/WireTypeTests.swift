import Foundation
import NimbusWire
import Testing

@Suite("Wire types")
struct WireTypeTests {
    @Test("stamps order by time, then by device id")
    func stampOrder() {
        #expect(HLCStamp(time: 1, device: "z") < HLCStamp(time: 2, device: "a"))
        #expect(HLCStamp(time: 5, device: "a") < HLCStamp(time: 5, device: "b"))
        #expect(!(HLCStamp(time: 5, device: "b") < HLCStamp(time: 5, device: "b")))
    }

    @Test("every known error code has a stable text and HTTP status", arguments: WireError.Code.known)
    func codes(_ code: WireError.Code) {
        #expect(WireError.Code(rawValue: code.rawValue) == code)
        #expect((200...599).contains(code.httpStatus))
    }

    @Test("name rules refuse empty, long, path and control-character names", arguments: [
        ("", false), ("ok-name_1.2", true), (String(repeating: "a", count: 255), true), (String(repeating: "a", count: 256), false),
        ("a/b", false), ("a\\b", false), ("..", false), (".", false), ("tab\there", false), ("Zone 🙂", true),
    ])
    func names(_ name: String, _ valid: Bool) {
        #expect((NameRules.problem(with: name) == nil) == valid)
    }

    @Test("an unknown field type is a decoding error, not a crash")
    func unknownFieldType() {
        let json = #"{"type":"uuid","value":"x"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FieldValue.self, from: Data(json.utf8)) }
    }
}
