import Foundation
import MultiAuth

/// The device state id and merchant config, fetched once per provider and shared by its flows
/// (providers.md §1.2 #1–#2, §1.6 `NOT_READY → READY`).
///
/// Concurrency: an actor; concurrent first calls share one fetch. Each GET is retried once,
/// then the fetch fails with `5003` (`.providerUnavailable`). A failed fetch is not cached.
actor OTPlessDevice {
    struct Ready: Sendable {
        let state: String
        let config: OTPlessWire.MerchantConfig
    }

    private var ready: Ready?
    private var inFlight: Task<Ready, any Error>?

    /// The cached state and config, fetching them first when needed.
    /// - Throws: `AuthError` `.providerUnavailable` (5003), `CancellationError`.
    func ready(api: OTPlessAPI, context: AuthContext) async throws -> Ready {
        if let ready { return ready }
        if let inFlight { return try await inFlight.value }
        // Owned by this actor through `inFlight`; it ends when both GETs finish (or fail), and
        // `inFlight` is cleared right after. It inherits no cancellation: a cancelled caller
        // stops waiting, the shared fetch completes for the others.
        let task = Task<Ready, any Error> {
            let stateResponse: OTPlessWire.StateResponse = try await Self.fetchTwice(api: api, context: context) {
                try await api.get("v2/state", context: context)
            }
            guard let state = stateResponse.state, !state.isEmpty else {
                throw AuthError(.providerUnavailable, "OTPLESS returned no device state", provider: api.provider, providerCode: "5003")
            }
            let config: OTPlessWire.MerchantConfig = try await Self.fetchTwice(api: api, context: context) {
                try await api.get("v2/lp/merchant/config/\(state)", context: context)
            }
            return Ready(state: state, config: config)
        }
        inFlight = task
        defer { inFlight = nil }
        let value = try await task.value
        ready = value
        return value
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
