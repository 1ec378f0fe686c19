import Foundation
import MultiAuth
import MultiAuthHTTP
import Testing

@Suite struct URLSessionTransportRequestTests {
    @Test func buildsURLRequestWithMethodHeadersBodyAndTimeout() throws {
        let transport = URLSessionTransport(
            defaultTimeout: .seconds(12), defaultHeaders: ["User-Agent": "UA", "X-Default": "d"])
        var request = try HTTPRequest.json(
            .post, URL(string: "https://api.example.com/v1/otp?x=1")!, body: ["email": "a@b.co"])
        request.headers["X-Default"] = "override"
        let urlRequest = transport.urlRequest(for: request)
        #expect(urlRequest.httpMethod == "POST")
        #expect(urlRequest.timeoutInterval == 12)
        #expect(urlRequest.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(urlRequest.value(forHTTPHeaderField: "User-Agent") == "UA")
        #expect(urlRequest.value(forHTTPHeaderField: "X-Default") == "override")
        #expect(urlRequest.httpBody == Data(#"{"email":"a@b.co"}"#.utf8))
        request.timeout = .milliseconds(1500)
        #expect(transport.urlRequest(for: request).timeoutInterval == 1.5)
        #expect(request.description == "POST api.example.com/v1/otp")
    }
}
