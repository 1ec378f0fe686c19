import Foundation
import MultiAuth
import Testing

/// `Secret`: every rendering redacted, `Codable` as the bare string, equality by value.
@Suite struct SecretTests {
    static let value = "SECRET-VALUE-0123456789"

    @Test func everyRenderingIsRedacted() {
        let secret = Secret(Self.value)
        var dumped = ""
        dump(secret, to: &dumped)
        let optional: Secret? = secret
        var dumpedOptional = ""
        dump(optional, to: &dumpedOptional)
        struct Holder {
            let token: Secret
            let optional: Secret?
            let list: [Secret]
        }
        let holder = Holder(token: secret, optional: secret, list: [secret])
        var dumpedHolder = ""
        dump(holder, to: &dumpedHolder)
        var debugPrinted = ""
        debugPrint(secret, to: &debugPrinted)
        let renderings = [
            secret.description, String(describing: secret), String(reflecting: secret), debugPrinted,
            dumped, dumpedOptional, String(describing: optional), String(reflecting: optional),
            String(describing: [secret]), String(reflecting: [secret]), "\(["key": secret])",
            String(describing: holder), String(reflecting: holder), dumpedHolder,
        ]
        for rendering in renderings {
            #expect(!rendering.contains(Self.value), "\(rendering)")
        }
        #expect(secret.description == "<redacted>")
        #expect(String(reflecting: secret) == Secret.redactionMarker)
        let expected = "(token: <redacted>, optional: Optional(<redacted>), list: [<redacted>])"
        #expect(String(describing: holder).hasSuffix(expected))
        #expect(Mirror(reflecting: secret).children.isEmpty)
    }

    @Test func revealReturnsTheValue() {
        #expect(Secret(Self.value).reveal() == Self.value)
        let literal: Secret = "abc"
        #expect(literal.reveal() == "abc")
        #expect(Secret("").isEmpty)
        #expect(Secret("é").utf8Count == 2)
    }

    @Test func equalityAndHashingFollowTheValue() {
        #expect(Secret("abc") == Secret("abc"))
        #expect(Secret("abc") != Secret("abd"))
        #expect(Secret("abc") != Secret("ab"))
        #expect(Secret("ab") != Secret("abc"))
        #expect(Secret("") == Secret(""))
        #expect(Secret("") != Secret("a"))
        // Equal as `String`s (canonical equivalence) but not byte for byte: secrets compare bytes.
        #expect(Secret("é") != Secret("e\u{301}"))
        #expect(Set([Secret("a"), Secret("a"), Secret("b")]).count == 2)
    }

    @Test func codableAsTheBareString() throws {
        struct Box: Codable, Equatable {
            var token: Secret
            var optional: Secret?
            var map: [String: Secret]
        }
        struct PlainBox: Codable {
            var token: String
            var optional: String?
            var map: [String: String]
        }
        let box = Box(token: "t-\"1\"/é", optional: "o", map: ["k": "v", "a": "\u{2028}"])
        let data = try JSONEncoder.multiAuth.encode(box)
        let plain = try JSONEncoder.multiAuth.encode(
            PlainBox(token: "t-\"1\"/é", optional: "o", map: ["k": "v", "a": "\u{2028}"]))
        #expect(data == plain)
        #expect(try JSONDecoder.multiAuth.decode(Box.self, from: plain) == box)
        #expect(throws: DecodingError.self) {
            try JSONDecoder.multiAuth.decode(Box.self, from: Data(#"{"map":{},"token":1}"#.utf8))
        }
    }
}
