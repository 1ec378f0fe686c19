import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthSandbox
import MultiAuthTestKeys

@testable import MultiAuthTruecaller

extension RecordingSubscriber {
    /// The published verification states, in order.
    var verificationStates: [String] {
        events.compactMap { if case .verificationStateChanged(let state) = $0.kind { state } else { nil } }
    }
}

/// JSON helpers for stubbed answers.
enum Stub {
    static func json(_ status: Int, _ object: [String: Any], headers: [String: String] = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: try! JSONSerialization.data(withJSONObject: object))
    }

    static func body(_ request: HTTPRequest) -> [String: Any] {
        guard let body = request.body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return [:] }
        return object
    }

    nonisolated(unsafe) static let profile: [String: Any] = [
        "firstName": "Asha", "lastName": "Rao", "phoneNumber": "+919876543210", "countryCode": "in", "gender": "F",
        "email": "asha@example.com", "isTrueName": true, "isAmbassador": false, "city": "Pune",
    ]
}

/// Shared fixtures: a configuration, a manual clock context, signing keys.
enum TruecallerWorld {
    static let base = URL(string: "https://truecaller.stub.test")!
    static let configuration = TruecallerConfigurationFactory.make()
    static let phone = try! PhoneNumber("+91 98765 43210")

    static func context(
        _ transport: any HTTPTransport, clock: ManualClock = ManualClock(),
        events: RecordingSubscriber = RecordingSubscriber()
    ) -> AuthContext {
        AuthContext(
            transport: transport, time: clock.timeSource, flowID: FlowID(rawValue: "flow-1"), events: events.sink())
    }

    /// Two committed RSA-2048 fixture keys.
    static let keyA = TestKeys.rsaA
    static let keyB = TestKeys.rsaB

    static func keyList(_ keys: [PrivateKey]) -> HTTPResponse {
        let entries = keys.map { ["key": Base64.encode(try! $0.publicKey.derRepresentation()), "keyType": "RSA"] }
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json"],
            body: try! JSONSerialization.data(withJSONObject: entries))
    }
}
