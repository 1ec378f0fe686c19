import Foundation
import MultiAuth
import MultiAuthHTTP
import Testing

/// The HTTP/1.1 request head and response parser the Apple cellular transport uses
/// (Docs/Providers/OTPless.md, "Silent network auth"); plain code, so it runs here.
@Suite(.timeLimit(.minutes(10)))
struct HTTP1MessageTests {
    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    func parse(_ raw: String, closed: Bool = false) throws -> HTTPResponse? {
        var parser = HTTP1Message.Parser()
        try parser.append(Data(raw.utf8))
        return try parser.response(connectionClosed: closed)
    }

    @Test func getRequestHeadCarriesTargetHostAndClose() throws {
        let url = try #require(URL(string: "http://80.in.safr.sekuramobile.test/v1/check/abc%2Fd?x=1&y=a%20b"))
        let head = text(try HTTP1Message.getRequest(for: url, headers: ["Accept": "application/json"]))
        #expect(
            head
                == "GET /v1/check/abc%2Fd?x=1&y=a%20b HTTP/1.1\r\nHost: 80.in.safr.sekuramobile.test\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
        )
    }

    @Test func nonDefaultPortIsInTheHostFieldAndAnEmptyPathIsSlash() throws {
        let head = text(try HTTP1Message.getRequest(for: try #require(URL(string: "https://carrier.test:8443"))))
        #expect(head == "GET / HTTP/1.1\r\nHost: carrier.test:8443\r\nConnection: close\r\n\r\n")
        let defaultPort = text(
            try HTTP1Message.getRequest(for: try #require(URL(string: "https://carrier.test:443/a"))))
        #expect(defaultPort.contains("Host: carrier.test\r\n"))
    }

    @Test func headerInjectionAndForeignSchemesAreRefused() throws {
        let url = try #require(URL(string: "http://carrier.test/"))
        #expect(throws: AuthError.self) {
            _ = try HTTP1Message.getRequest(for: url, headers: ["X": "a\r\nInjected: 1"])
        }
        #expect(throws: AuthError.self) { _ = try HTTP1Message.getRequest(for: url, headers: ["X:Y": "a"]) }
        #expect(throws: AuthError.self) {
            _ = try HTTP1Message.getRequest(for: try #require(URL(string: "ftp://carrier.test/")))
        }
        // Framing headers the transport owns are never taken from the caller.
        let head = text(
            try HTTP1Message.getRequest(for: url, headers: ["Connection": "keep-alive", "Host": "evil.test"]))
        #expect(head == "GET / HTTP/1.1\r\nHost: carrier.test\r\nConnection: close\r\n\r\n")
    }

    @Test func contentLengthBodyIsCompleteOnlyWhenAllBytesArrived() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n"
        #expect(try parse(head + #"{"status":"#) == nil)
        let response = try #require(try parse(head + #"{"status":"ok"}"#))
        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json")
        #expect(text(response.body) == #"{"status":"ok"}"#)
        #expect(throws: AuthError.self) { _ = try parse(head + #"{"sta"#, closed: true) }
    }

    @Test func chunkedBodyIsReassembled() throws {
        let raw =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"statu\r\n8;ext=1\r\ns\":\"ok\"}\r\n0\r\n\r\n"
        #expect(try parse(String(raw.dropLast(9))) == nil)
        let response = try #require(try parse(raw))
        #expect(text(response.body) == #"{"status":"ok"}"#)
        #expect(throws: AuthError.self) { _ = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") }
    }

    @Test func closeDelimitedBodyEndsWithTheConnection() throws {
        let raw = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n{\"error\":\"x\"}"
        #expect(try parse(raw) == nil)
        let response = try #require(try parse(raw, closed: true))
        #expect(response.status == 400)
        #expect(text(response.body) == #"{"error":"x"}"#)
    }

    @Test func noBodyStatusesAndMalformedHeadsAreHandled() throws {
        #expect(try parse("HTTP/1.1 204 No Content\r\n\r\n")?.status == 204)
        #expect(throws: AuthError.self) { _ = try parse("HTTP/2 200\r\n\r\n") }
        #expect(throws: AuthError.self) { _ = try parse("HTTP/1.1 2000 OK\r\n\r\n") }
        #expect(throws: AuthError.self) { _ = try parse("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n") }
        #expect(throws: AuthError.self) { _ = try parse("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n") }
        #expect(throws: AuthError.self) { _ = try parse("HTTP/1.1 200 OK\r\n", closed: true) }
    }

    @Test func oversizedInputIsRefusedNotBuffered() throws {
        var parser = HTTP1Message.Parser()
        let big = Data(repeating: UInt8(ascii: "a"), count: HTTP1Message.maximumHeaderBytes + 1)
        try parser.append(big)
        #expect(throws: AuthError.self) { _ = try parser.response(connectionClosed: false) }
        #expect(throws: AuthError.self) {
            var growing = HTTP1Message.Parser()
            try growing.append(Data(count: HTTP1Message.maximumHeaderBytes + HTTP1Message.maximumBodyBytes + 8192))
        }
    }

    @Test func redirectsResolveRelativeLocationsAndIgnoreOtherStatuses() throws {
        let from = try #require(URL(string: "http://carrier.test/a/b?x=1"))
        let relative = HTTPResponse(status: 302, headers: ["location": "/next?y=2"])
        #expect(
            HTTP1Message.redirectTarget(of: relative, requestURL: from)?.absoluteString
                == "http://carrier.test/next?y=2")
        let absolute = HTTPResponse(status: 307, headers: ["Location": "https://aggregator.test/z"])
        #expect(
            HTTP1Message.redirectTarget(of: absolute, requestURL: from)?.absoluteString == "https://aggregator.test/z")
        #expect(
            HTTP1Message.redirectTarget(of: HTTPResponse(status: 200, headers: ["Location": "/x"]), requestURL: from)
                == nil)
        #expect(HTTP1Message.redirectTarget(of: HTTPResponse(status: 301), requestURL: from) == nil)
        #expect(
            HTTP1Message.redirectTarget(
                of: HTTPResponse(status: 302, headers: ["Location": "javascript:alert(1)"]), requestURL: from) == nil)
    }
}
