import Foundation
import MultiAuth

extension Sandbox {
    /// An `AuthClient` wired to this sandbox: ``transport`` for every provider and ``time``
    /// (the ``clock`` unless the sandbox runs on another time source). The one way the tests
    /// and samples build a client over a sandbox.
    /// - Parameters:
    ///   - providers: The providers; ids must be unique.
    ///   - store: Where sessions are persisted (default: a new in-memory store).
    ///   - refreshMargin: How long before expiry a session is refreshed (default 60 s).
    ///   - autoRefresh: Background refresh (default on; tests that move the clock past an
    ///     expiry and do not want it pass `.disabled`).
    /// - Returns: A ready client.
    /// - Throws: `AuthError` `.configuration` when two providers share an id.
    public func makeClient(
        providers: [any AuthProvider], store: any SessionStore = InMemorySessionStore(),
        refreshMargin: Duration = .seconds(60),
        autoRefresh: AutoRefresh = .enabled
    ) throws -> AuthClient {
        try AuthClient(
            providers: providers, store: store, transport: transport, time: time, refreshMargin: refreshMargin,
            autoRefresh: autoRefresh)
    }

    /// An `AuthContext` wired to this sandbox (``transport``, ``time``), for calling a provider
    /// directly without a client.
    /// - Parameters:
    ///   - flowID: The flow the calls belong to, if any.
    ///   - events: Receives the events the provider emits (e.g. a ``RecordingSubscriber``'s
    ///     ``RecordingSubscriber/sink(provider:flowID:)``).
    public func authContext(flowID: FlowID? = nil, events: @escaping @Sendable (AuthEvent.Kind) -> Void = { _ in })
        -> AuthContext
    {
        AuthContext(transport: transport, time: time, flowID: flowID, events: events)
    }
}
