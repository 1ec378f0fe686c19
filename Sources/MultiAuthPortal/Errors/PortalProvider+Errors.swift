import Foundation
import MultiAuth

extension PortalProvider {
    /// Maps a non-2xx status (Docs/Providers/Portal.md, "Errors"): 429 → `rateLimited` (no
    /// automatic retry); 400 → `configuration`, labelled `accountAbstractionUnavailable` only
    /// when a body `{error}` answers a request that asked for account abstraction (the SDK's
    /// mapping), else `badRequest` with a message naming what the magic-link call depends on
    /// (the real backend's 400 for a missing `fromEmail`/`templateId` must not read as an
    /// account-abstraction problem); 401 → `configuration`; 5xx → `providerUnavailable`;
    /// other → `generic` with the status. The server's 400 text is shown only through
    /// `AuthError.redactedServerText` (a server may echo what the request carried).
    /// Internal: apps see `AuthError` only.
    func failure(_ response: HTTPResponse, operation: String) -> AuthError {
        let common = response.commonError(
            provider: id, providerCode: response.status == 429 ? "rateLimited" : nil, retryAfterWhenUnavailable: false
        ) {
            $0 == .rateLimited
                ? "too many requests while \(operation); wait a minute and try again"
                : "Portal answered HTTP \(response.status) while \(operation)"
        }
        if let common { return common }
        switch response.status {
        case 400:
            let text = (try? response.decodeJSON(PortalWire.ErrorBody.self).error).map(AuthError.redactedServerText)
            if text != nil, configuration.isAccountAbstracted != nil {
                return AuthError(
                    .configuration,
                    "\(operation) failed: account abstraction unavailable\(text.map { " (\($0))" } ?? "")",
                    provider: id, providerCode: "accountAbstractionUnavailable")
            }
            return AuthError(
                .configuration,
                "Portal rejected the request while \(operation) (HTTP 400\(text.map { ": \($0)" } ?? "")); "
                    + "check fromEmail and templateID (a sender and a template the environment knows) and the redirect URL",
                provider: id, providerCode: "badRequest")
        case 401:
            return AuthError(
                .configuration, "\(operation) was refused: check the auth environment id and the redirect allow-list",
                provider: id, providerCode: "401")
        default:
            return AuthError(
                .generic, "Portal answered HTTP \(response.status) while \(operation)", provider: id,
                providerCode: "\(response.status)")
        }
    }
}
