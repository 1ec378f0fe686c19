import Foundation

/// Everything a provider may use during one call: the HTTP transport, the time source and an
/// event sink bound to the provider and the flow.
///
/// Providers hold no global state: every dependency arrives here, so the same provider value
/// works against the real network, the in-process sandbox and a test double.
public struct AuthContext: Sendable {
    /// The transport for every network call.
    public let transport: any HTTPTransport
    /// The time source: sleep on its clock, read `now` for expiry and TOTP.
    public let time: TimeSource
    /// The flow this call belongs to; `nil` for calls outside a flow (refresh, sign-out).
    public let flowID: FlowID?
    private let sink: @Sendable (AuthEvent.Kind) -> Void

    /// Creates a context.
    /// - Parameters:
    ///   - transport: The HTTP transport.
    ///   - time: The time source.
    ///   - flowID: The current flow, if any.
    ///   - events: Receives events the provider emits; the client publishes them on its bus
    ///     stamped with the provider id and `flowID`.
    public init(
        transport: any HTTPTransport, time: TimeSource, flowID: FlowID? = nil,
        events: @escaping @Sendable (AuthEvent.Kind) -> Void = { _ in }
    ) {
        self.transport = transport
        self.time = time
        self.flowID = flowID
        self.sink = events
    }

    /// Publishes a provider event (delivery status, fallback, verification state). Never
    /// suspends. Pass only secret-free values.
    public func emit(_ kind: AuthEvent.Kind) { sink(kind) }

    /// The current wall-clock time (shorthand for `time.now`).
    public var now: Date { time.now }
}
