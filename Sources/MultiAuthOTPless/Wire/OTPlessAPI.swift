import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking

/// Builds and sends OTPLESS headless requests with the parameters the SDK adds to every call
/// (Docs/Providers/OTPless.md, "Wire: common parameters"): merged into the JSON body of a
/// POST, or added as query items to a GET.
struct OTPlessAPI: Sendable {
    let configuration: OTPlessConfiguration
    let provider: AuthProviderID
    /// `inId`: the configured installation id, else one derived from app id and bundle id.
    let installationID: String

    init(configuration: OTPlessConfiguration, provider: AuthProviderID) {
        self.configuration = configuration
        self.provider = provider
        self.installationID =
            configuration.installationID
            ?? OTPlessTracking.installationID(appID: configuration.appID, packageName: configuration.packageName)
    }

    /// The device description sent as `deviceInfo` (a JSON string), a subset of the SDK's keys.
    static let deviceInfo: [String: String] = ["platform": "iOS", "vendor": "Apple"]

    /// The common parameters. `post` selects the POST form (`platform: HEADLESS`, `isHeadless`
    /// a boolean, `uid` always present, `metadata`) or the GET form (`platform=iOS`,
    /// `isLoginPage=false`, strings only, no `metadata`, `uid` only when known).
    func commonParameters(post: Bool, uid: String, context: AuthContext) -> [String: JSONValue] {
        let trackingID = OTPlessTracking.sessionID(now: context.now)
        let device = Self.jsonString(Self.deviceInfo)
        var values: [String: JSONValue] = [
            "origin": .string("https://otpless.com"),
            "version": .string("V4"),
            "tsId": .string(trackingID),
            "inId": .string(installationID),
            "deviceInfo": .string(device),
            "loginUri": .string(configuration.loginURI),
            "appId": .string(configuration.appID),
            "packageName": .string(configuration.packageName),
            "package": .string(configuration.packageName),
        ]
        if post {
            values["isHeadless"] = .bool(true)
            values["platform"] = .string("HEADLESS")
            values["uid"] = .string(uid)
            let appInfo: [String: String] = [
                "manufacturer": "Apple",
                "hasWhatsapp": configuration.hasWhatsApp ? "true" : "false",
                "inid": installationID,
                "tsid": trackingID,
                "sdkVersion": OTPlessTracking.sdkVersion,
                "isSilentAuthSupported": context.transport.availableCellularTransport == nil ? "false" : "true",
            ]
            // Two levels of JSON strings, as the SDK sends them.
            values["metadata"] = .string(Self.jsonString(["appInfo": Self.jsonString(appInfo), "deviceInfo": device]))
        } else {
            values["isHeadless"] = .string("true")
            values["platform"] = .string("iOS")
            values["isLoginPage"] = .string("false")
            if !uid.isEmpty { values["uid"] = .string(uid) }
        }
        return values
    }

    /// A compact JSON object with sorted keys.
    static func jsonString(_ object: [String: String]) -> String {
        let data = (try? JSONEncoder.multiAuth.encode(object)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// `POST {base}{path}` with `body` merged over the common parameters; `uid` is the user id
    /// the server returned for this flow, `""` when unknown.
    func post(_ path: String, body: [String: JSONValue], uid: String, context: AuthContext) async throws -> HTTPResponse
    {
        var merged = commonParameters(post: true, uid: uid, context: context)
        for (key, value) in body { merged[key] = value }
        let request = try HTTPRequest.json(.post, configuration.baseURL.appending(path: path), body: merged)
        return try await context.transport.send(request)
    }

    /// `GET {base}{path}?…` with the common parameters plus `query` (empty values omitted).
    func get(_ path: String, query: [String: String] = [:], uid: String = "", context: AuthContext) async throws
        -> HTTPResponse
    {
        var items: [String: String] = [:]
        for (key, value) in commonParameters(post: false, uid: uid, context: context) { items[key] = value.stringValue }
        for (key, value) in query where !value.isEmpty { items[key] = value }
        var components = URLComponents(
            url: configuration.baseURL.appending(path: path), resolvingAgainstBaseURL: false)!
        components.queryItems = items.keys.sorted().map { URLQueryItem(name: $0, value: items[$0]) }
        // `+` would read as a space in a query; encode it (and keep `URLComponents` semantics otherwise).
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return try await context.transport.send(
            HTTPRequest(method: .get, url: components.url!, headers: ["Accept": "application/json"]))
    }

    /// The headers and JSON body of the session API (`v4/session/…`): headers `appId` and
    /// `state`, body `{appId, origin, loginUri}` plus `extra` (Docs/Providers/OTPless.md,
    /// "Sessions").
    /// `components` are path segments (each percent-encoded as one segment, e.g. a token).
    func sessionRequest(
        _ method: HTTPMethod, _ components: [String], state: String, extra: [String: String] = [:]
    ) throws -> HTTPRequest {
        var body = [
            "appId": configuration.appID, "origin": "https://otpless.com",
            "loginUri": "https://otpless.com/rc5/appid/\(configuration.appID)",
        ]
        for (key, value) in extra { body[key] = value }
        var url = configuration.sessionBaseURL
        for component in components { url = url.appending(component: component) }
        return try HTTPRequest.json(
            method, url, body: body,
            headers: ["appId": configuration.appID, "state": state])
    }

    /// Decodes a 2xx body as `T`, or throws the mapped error of a non-2xx response.
    /// - Throws: `AuthError` from `OTPlessErrorMapping` or `.malformedResponse`.
    func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, attemptsRemaining: Int? = nil) throws -> T {
        guard response.isSuccess else {
            throw OTPlessErrorMapping.error(for: response, attemptsRemaining: attemptsRemaining, provider: provider)
        }
        return try response.decodeJSON(T.self, provider: provider)
    }
}

/// The tracking ids of the common parameters (Docs/Providers/OTPless.md, "Wire: common
/// parameters"): `tsId` once per process, `inId` stable per configuration.
enum OTPlessTracking {
    /// What the adapter reports as `sdkVersion` inside `metadata.appInfo`.
    static let sdkVersion = "MultiAuthOTPless/1"

    /// The `tsId` of this process, made by the first ``sessionID(now:)``.
    private static let processTrackingID = Locked<String?>(nil)

    /// `tsId`: a UUID and the Unix time of the first request of this process, as the SDK makes
    /// one per launch; the same value for every provider in the process.
    static func sessionID(now: Date) -> String {
        processTrackingID.withLock { processTrackingID in
            if let processTrackingID { return processTrackingID }
            let id = UUID().uuidString + "-" + String(WireNumber.unixSeconds(now))
            processTrackingID = id
            return id
        }
    }

    /// `inId` when the app keeps none: a UUID-shaped SHA-256 digest of app id and bundle id, so
    /// one configuration always sends the same value (the SDK persists a random one per
    /// installation; the server is not known to interpret it).
    static func installationID(appID: String, packageName: String) -> String {
        var bytes = Array(MessageDigest.sha256(Array("otpless-inid\u{0}\(appID)\u{0}\(packageName)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8 (custom, RFC 9562 §5.8)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [
            hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4),
            hex.dropFirst(20),
        ]
        return parts.joined(separator: "-")
    }
}
