import Foundation
import MultiAuth

/// The HTTP half the two reference providers (``ReferenceProvider``, ``PasskeyReferenceProvider``)
/// share: a JSON `POST` whose failure is mapped by the provider, and the first steps of that
/// mapping, which do not depend on the protocol.
enum ReferenceWire {
    /// `POST`s `body` as JSON to `url` and decodes a success as `Result`.
    /// - Throws: what `mapError` makes of a non-2xx answer, the transport's errors, or
    ///   `AuthError` `.malformedResponse` for a success body that does not decode.
    static func post<Body: Encodable, Result: Decodable>(
        _ url: URL, _ body: Body, provider: AuthProviderID, context: AuthContext,
        mapError: (HTTPResponse) -> AuthError
    ) async throws -> Result {
        let response = try await context.transport.send(try .json(.post, url, body: body))
        guard response.isSuccess else { throw mapError(response) }
        return try response.decodeJSON(Result.self, provider: provider)
    }

    /// The error body of a failed answer, or the error that ends the mapping first: a `5xx` is
    /// `.providerUnavailable` (with the status as `providerCode` and the answer's `Retry-After`),
    /// a body that does not decode as `ErrorBody` is `.malformedResponse`. `protocolName` names
    /// the protocol in the messages ("the reference server answered HTTP 503", "HTTP 400
    /// without a reference error body").
    static func errorBody<ErrorBody: Decodable>(
        _ type: ErrorBody.Type, of response: HTTPResponse, protocolName: String, provider: AuthProviderID
    ) -> Swift.Result<ErrorBody, AuthError> {
        if response.status >= 500 {
            return .failure(
                AuthError(
                    .providerUnavailable, "the \(protocolName) server answered HTTP \(response.status)",
                    provider: provider,
                    providerCode: String(response.status), retryAfter: response.retryAfter))
        }
        guard let body = try? response.decodeJSON(type, provider: provider) else {
            return .failure(
                AuthError(
                    .malformedResponse, "HTTP \(response.status) without a \(protocolName) error body",
                    provider: provider,
                    providerCode: String(response.status)))
        }
        return .success(body)
    }
}
