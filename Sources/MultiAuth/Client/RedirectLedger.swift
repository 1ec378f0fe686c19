/// The redirects (magic links, OAuth callbacks) one `AuthClient` has exchanged or is
/// exchanging, by URL.
///
/// A plain value owned by the client actor. Invariants:
/// - R1. A URL is entered **before** its provider call starts (``begin(_:exchange:)``), so a
///   second delivery while the first is in flight joins it (``inFlight(_:)``) instead of
///   spending the grant again: one provider exchange per URL, and every delivery gets the same
///   result.
/// - R2. A URL whose exchange produced a step is remembered with the flow it led to
///   (``complete(_:flow:)``) so a re-delivery replays the result; a failed exchange is
///   forgotten (``fail(_:)``) so a later delivery may try again.
/// - R3. Memory is bounded: at most ``memory`` completed URLs, oldest forgotten first.
struct RedirectLedger {
    /// How many completed redirects are remembered for replay.
    static let memory = 64

    private var exchanges: [String: SharedWork<SignInStep>] = [:]
    private var completed = BoundedMap<String, FlowID>(capacity: RedirectLedger.memory)

    /// The flow a completed exchange of `url` led to.
    func completedFlow(_ url: String) -> FlowID? { completed[url] }

    /// The exchange of `url` in flight, if any.
    func inFlight(_ url: String) -> SharedWork<SignInStep>? { exchanges[url] }

    /// Enters `url` with its exchange, before the provider is called (R1).
    mutating func begin(_ url: String, exchange: SharedWork<SignInStep>) {
        exchanges[url] = exchange
    }

    /// Records that the exchange of `url` led to `flowID` (R2).
    mutating func complete(_ url: String, flow flowID: FlowID) {
        exchanges[url] = nil
        completed.set(flowID, for: url)
    }

    /// Forgets the exchange of `url` after it failed (R2).
    mutating func fail(_ url: String) {
        exchanges[url] = nil
    }

    /// The number of exchanges in flight.
    var inFlightCount: Int { exchanges.count }
}
