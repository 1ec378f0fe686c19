import Foundation
import MultiAuth
import MultiAuthCrypto

/// Builds and sends OTPLESS headless requests with the parameters the SDK adds to every call
/// (providers.md §1.2): JSON bodies for POSTs, query parameters for GETs.
struct OTPlessAPI: Sendable {
    let configuration: OTPlessConfiguration
    let provider: AuthProviderID
    /// `inId`: a UUID and a Unix time, fixed for this provider value (the SDK persists it).
    let installationID: String

    init(configuration: OTPlessConfiguration, provider: AuthProviderID) {
        self.configuration = configuration
        self.provider = provider
        self.installationID = UUID().uuidString.lowercased()
    }

    /// The common parameters; `post` selects `platform: HEADLESS` (POST) or `iOS` (GET).
    func commonParameters(post: Bool, now: Date) -> [String: JSONValue] {
        let stamp = String(Int(now.timeIntervalSince1970))
        let device = #"{"platform":"iOS","sdk":"MultiAuthOTPless"}"#
        var values: [String: JSONValue] = [
            "origin": .string("https://otpless.com"),
            "version": .string("V4"),
            "tsId": .string(UUID().uuidString.lowercased() + "-" + stamp),
            "inId": .string(installationID + "-" + stamp),
            "deviceInfo": .string(device),
            "loginUri": .string(configuration.loginURI),
            "appId": .string(configuration.appID),
            "packageName": .string(configuration.packageName),
            "package": .string(configuration.packageName),
            "metadata": .string(#"{"appInfo":{"package":"\#(configuration.packageName)"},"deviceInfo":\#(device)}"#),
        ]
        if post {
            values["isHeadless"] = .bool(true)
            values["platform"] = .string("HEADLESS")
        } else {
            values["isHeadless"] = .string("true")
            values["platform"] = .string("iOS")
            values["isLoginPage"] = .string("false")
        }
        return values
    }

    /// `POST {base}{path}` with `body` merged over the common parameters.
    func post(_ path: String, body: [String: JSONValue], context: AuthContext) async throws -> HTTPResponse {
        var merged = commonParameters(post: true, now: context.now)
        for (key, value) in body { merged[key] = value }
        let request = try HTTPRequest.json(.post, configuration.baseURL.appending(path: path), body: merged)
        return try await context.transport.send(request)
    }

    /// `GET {base}{path}?…` with the common parameters plus `query` (empty values omitted).
    func get(_ path: String, query: [String: String] = [:], context: AuthContext) async throws -> HTTPResponse {
        var items: [String: String] = [:]
        for (key, value) in commonParameters(post: false, now: context.now) { items[key] = value.stringValue }
        for (key, value) in query where !value.isEmpty { items[key] = value }
        var components = URLComponents(url: configuration.baseURL.appending(path: path), resolvingAgainstBaseURL: false)!
        components.queryItems = items.keys.sorted().map { URLQueryItem(name: $0, value: items[$0]) }
        // `+` would read as a space in a query; encode it (and keep `URLComponents` semantics otherwise).
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return try await context.transport.send(HTTPRequest(method: .get, url: components.url!, headers: ["Accept": "application/json"]))
    }

    /// Decodes a 2xx body as `T`, or throws the mapped error of a non-2xx response.
    /// - Throws: `AuthError` from ``OTPlessErrorMapping`` or `.malformedResponse`.
    func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, attemptsRemaining: Int? = nil) throws -> T {
        guard response.isSuccess else {
            throw OTPlessErrorMapping.error(
                status: response.status, body: response.body, retryAfter: response.retryAfter,
                attemptsRemaining: attemptsRemaining, provider: provider)
        }
        return try response.decodeJSON(T.self, provider: provider)
    }
}
