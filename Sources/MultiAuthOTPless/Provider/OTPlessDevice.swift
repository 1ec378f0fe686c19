import Foundation
import MultiAuth
import MultiAuthLocking

/// The device state id and merchant config, fetched once per provider and shared by its flows
/// (`GET /v2/state`, `GET /v2/lp/merchant/config/{state}`; Docs/Providers/OTPless.md, "Flows").
///
/// The device state id is provider state (Docs/Security.md, "Redaction"): it lives in a `Locked`
/// box, so no rendering of the provider shows it.
///
/// Concurrency: an actor. Each GET is retried once,
/// then the fetch fails with `5003` (`.providerUnavailable`). A failed fetch is not cached.
actor OTPlessDevice {
    struct Ready: Sendable {
        let state: String
        let config: OTPlessWire.MerchantConfig
    }

    private let cached = Locked<Ready?>(nil)

    /// The cached state and config, fetching them first when needed. The fetch runs in the
    /// caller's task, so cancelling the caller cancels it; concurrent first callers may each
    /// fetch (the first answer is kept).
    /// - Throws: `AuthError` `.providerUnavailable` (5003), `CancellationError`.
    func ready(api: OTPlessAPI, context: AuthContext) async throws -> Ready {
        if let ready = cached.withLock({ $0 }) { return ready }
        let stateResponse: OTPlessWire.StateResponse = try await Self.fetchTwice(api: api, context: context) {
            try await api.get("v2/state", context: context)
        }
        guard let state = stateResponse.state, !state.isEmpty else {
            throw AuthError(
                .providerUnavailable, "OTPLESS returned no device state", provider: api.provider, providerCode: "5003")
        }
        let config: OTPlessWire.MerchantConfig = try await Self.fetchTwice(api: api, context: context) {
            try await api.get("v2/lp/merchant/config/\(state)", context: context)
        }
        return cached.withLock { cached in
            if cached == nil { cached = Ready(state: state, config: config) }
            return cached!
        }
    }

    private static func fetchTwice<T: Decodable>(
        api: OTPlessAPI, context: AuthContext, _ send: () async throws -> HTTPResponse
    ) async throws -> T {
        var lastError: (any Error)?
        for _ in 0..<2 {
            do {
                let response = try await send()
                if response.isSuccess, let value = try? response.decodeJSON(T.self) { return value }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                lastError = error
            }
        }
        throw AuthError(
            .providerUnavailable, "OTPLESS initialisation failed twice", provider: api.provider, providerCode: "5003",
            underlying: lastError)
    }
}
