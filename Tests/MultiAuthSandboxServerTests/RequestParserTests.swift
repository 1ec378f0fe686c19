import Foundation
import MultiAuthSandboxServer
import Testing

/// The incremental HTTP/1.1 request parser: framing, limits and the refusals that prevent
/// request smuggling (RFC 9112 §6.3, §11.2).
@Suite struct RequestParserTests {
    func events(_ text: String, limits: ServerLimits = ServerLimits(), byteAtATime: Bool = false) -> [String] {
        var parser = RequestParser(limits: limits)
        var out: [String] = []
        func drain() {
            while true {
                switch parser.next() {
                case .needMore: return
                case .sendContinue: out.append("100")
                case .request(let request):
                    out.append("\(request.method) \(request.target) \(String(decoding: request.body, as: UTF8.self))")
                case .invalid(let status, _):
                    out.append("\(status)")
                    return
                }
            }
        }
        if byteAtATime {
            for byte in Array(text.utf8) {
                parser.append([byte])
                drain()
                if out.last.map({ Int($0) != nil && $0 != "100" }) == true { break }
            }
        } else {
            parser.append(Array(text.utf8))
            drain()
        }
        return out
    }

    @Test func pipelinedRequestsComeOutInOrder() {
        let text =
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n1;ext=1\r\n!\r\n0\r\nX-Trailer: y\r\n\r\n"
        #expect(events(text) == ["GET /a ", "POST /b abc", "POST /c hi!"])
        #expect(events(text, byteAtATime: true) == ["GET /a ", "POST /b abc", "POST /c hi!"])
    }

    @Test func expectContinueIsAnnouncedOnce() {
        #expect(
            events("PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok") == [
                "100", "PUT /x ok",
            ])
    }

    @Test func limitsAreEnforcedBeforeTheWork() {
        var limits = ServerLimits()
        limits.maximumRequestLineBytes = 64
        limits.maximumHeaderBytes = 256
        limits.maximumBodyBytes = 10
        limits.maximumHeaderCount = 3
        #expect(events("GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\n", limits: limits) == ["414"])
        #expect(
            events("GET / HTTP/1.1\r\nHost: x\r\nA: " + String(repeating: "a", count: 300), limits: limits) == ["431"])
        #expect(events("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits) == ["431"])
        #expect(events("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", limits: limits) == ["413"])
        #expect(
            events("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n", limits: limits) == ["413"])
    }

    @Test func ambiguousFramingIsRefused() {
        #expect(
            events("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n") == ["400"])
        #expect(events("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n") == ["400"])
        #expect(events("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\n") == ["400"])
        #expect(events("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n") == ["501"])
        #expect(events("GET / HTTP/1.1\r\nHost: x\r\n Folded: y\r\n\r\n") == ["400"])
        #expect(events("GET / HTTP/1.1\r\nHost : x\r\n\r\n") == ["400"])
        #expect(events("GET / HTTP/1.1\nHost: x\r\n\r\n") == ["400"])
        #expect(events("GET / HTTP/1.1\r\n\r\n") == ["400"])
        #expect(events("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == ["400"])
        #expect(events("GET / HTTP/2.0\r\nHost: x\r\n\r\n") == ["505"])
        #expect(events("GET / HTTP/1.0\r\n\r\n") == ["GET / "])
    }

    @Test func anAbsoluteTargetIsReducedToItsPath() {
        var parser = RequestParser(limits: ServerLimits())
        parser.append(Array("GET http://app.dynamic.test/api/v0?x=1 HTTP/1.1\r\nHost: app.dynamic.test\r\n\r\n".utf8))
        guard case .request(let request) = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(request.target == "/api/v0?x=1")
        #expect(request.absoluteHost == "app.dynamic.test")
        #expect(request.keepAlive)
    }
}
