import Foundation
import MultiAuth
import MultiAuthLocking

/// The faults a ``Sandbox`` injects: per host and path prefix, latency, a forced HTTP status,
/// a dropped connection or a rate limit; per channel, failed delivery; per host, a server clock
/// offset.
///
/// Rules are checked in the order they were added. For one request the sandbox sums the
/// latency of every matching latency rule, sleeps it on its ``ManualClock``, then applies the
/// first matching terminal rule (drop, status, rate limit); with none it calls the backend.
/// A rule with `probability < 1` fires at random, drawn from a generator seeded by the
/// sandbox's seed, so a run is reproducible: the same seed and the same request order give the
/// same faults. A rule that did not fire is not used up.
///
/// Thread-safe (its fields are in one `Locked` state); changes apply to requests that arrive afterwards.
public final class FaultPlan: Sendable {
    private struct Rule: Sendable {
        let id: FaultRuleID
        let host: String?
        let pathPrefix: String
        let action: FaultAction
        var remaining: Int?
        let probability: Double
        var hits: [Date] = []

        func matches(host: String, path: String) -> Bool {
            (self.host == nil || self.host == host) && path.hasPrefix(pathPrefix)
        }
    }

    private struct DeliveryRule: Sendable {
        let id: FaultRuleID
        let channel: DeliveryChannel
        let destination: String?
        var remaining: Int?
    }

    /// What the plan decided for one request.
    struct Decision {
        var latency: Duration = .zero
        var responseLatency: Duration = .zero
        var outcome: Outcome = .pass

        enum Outcome {
            case pass
            case drop
            case respond(HTTPResponse)
        }
    }

    /// The plan's mutable fields, only touched inside `state.withLock`.
    private struct State {
        var rules: [Rule] = []
        var deliveryRules: [DeliveryRule] = []
        var offsets: [String: Duration] = [:]
        var globalOffset: Duration = .zero
        var nextID: UInt64 = 0
        var firings: [FaultRuleID: Int] = [:]
        var generator: SeededRandomNumberGenerator

        /// A fresh rule id.
        mutating func makeID() -> FaultRuleID {
            nextID += 1
            return FaultRuleID(rawValue: nextID)
        }

        /// See ``FaultPlan/deliveryFails(on:to:)``.
        mutating func deliveryFails(on channel: DeliveryChannel, to destination: String) -> Bool {
            guard
                let index = deliveryRules.firstIndex(where: {
                    $0.channel == channel && ($0.destination == nil || $0.destination == destination)
                })
            else { return false }
            firings[deliveryRules[index].id, default: 0] += 1
            if let remaining = deliveryRules[index].remaining {
                if remaining <= 1 {
                    deliveryRules.remove(at: index)
                } else {
                    deliveryRules[index].remaining = remaining - 1
                }
            }
            return true
        }

        /// See `FaultPlan.evaluate(host:path:now:)`.
        mutating func evaluate(host: String, path: String, now: Date) -> Decision {
            var decision = Decision()
            var index = 0
            var terminalChosen = false
            while index < rules.count {
                guard rules[index].matches(host: host, path: path) else {
                    index += 1
                    continue
                }
                let rule = rules[index]
                let isLatency: Bool
                switch rule.action {
                case .latency, .responseLatency: isLatency = true
                default: isLatency = false
                }
                if !isLatency && terminalChosen {
                    index += 1
                    continue
                }
                if rule.probability < 1 && Double.random(in: 0..<1, using: &generator) >= rule.probability {
                    index += 1
                    continue
                }
                var fired = true
                switch rule.action {
                case .latency(let duration):
                    decision.latency += duration
                case .responseLatency(let duration):
                    decision.responseLatency += duration
                case .dropConnection:
                    decision.outcome = .drop
                    terminalChosen = true
                case .status(let status, let headers, let body):
                    decision.outcome = .respond(HTTPResponse(status: status, headers: headers, body: body))
                    terminalChosen = true
                case .rateLimit(let limit, let window):
                    let windowStart = now.addingTimeInterval(-window.timeInterval)
                    rules[index].hits.removeAll { $0 <= windowStart }
                    if rules[index].hits.count < limit {
                        rules[index].hits.append(now)
                        fired = false
                    } else {
                        let oldest = rules[index].hits.first ?? now
                        let wait = max(
                            1, Int((oldest.addingTimeInterval(window.timeInterval).timeIntervalSince(now)).rounded(.up))
                        )
                        decision.outcome = .respond(FaultPlan.rateLimited(retryAfter: wait))
                        terminalChosen = true
                    }
                }
                if fired { firings[rule.id, default: 0] += 1 }
                if fired, let remaining = rules[index].remaining {
                    if remaining <= 1 {
                        rules.remove(at: index)
                        continue
                    }
                    rules[index].remaining = remaining - 1
                }
                index += 1
            }
            return decision
        }
    }

    private let state: Locked<State>

    /// Creates an empty plan whose random faults are drawn from `seed`.
    public init(seed: UInt64 = 0) {
        state = Locked(State(generator: SeededRandomNumberGenerator(seed: seed ^ 0x5EED_FA17_0000_0001)))
    }

    private static func count(_ repeat: FaultRepeat) -> Int? {
        switch `repeat` {
        case .once: 1
        case .times(let n): max(0, n)
        case .always: nil
        }
    }

    /// Adds a rule.
    /// - Parameters:
    ///   - action: What to do to a matching request.
    ///   - host: The host to match; `nil` matches every host.
    ///   - pathPrefix: Matches paths starting with it (`""` matches every path), e.g. `"/otp/"`.
    ///   - repeat: How many matching requests it fires for (default: every one).
    ///   - probability: The chance it fires for a matching request, `0 ... 1` (default 1).
    /// - Returns: The rule's id, for ``remove(_:)``.
    @discardableResult
    public func add(
        _ action: FaultAction, host: String? = nil, pathPrefix: String = "", repeat: FaultRepeat = .always,
        probability: Double = 1
    ) -> FaultRuleID {
        state.withLock { state in
            let id = state.makeID()
            state.rules.append(
                Rule(
                    id: id, host: host, pathPrefix: pathPrefix, action: action, remaining: Self.count(`repeat`),
                    probability: min(1, max(0, probability))))
            return id
        }
    }

    /// Makes delivery on `channel` fail (the message lands in the ``Inbox`` as `.failed`);
    /// backends consult this through ``SandboxContext/deliver(code:link:to:channel:)`` and
    /// may fall back to another channel.
    /// - Parameters:
    ///   - channel: The failing channel.
    ///   - destination: Only this destination (E.164 or e-mail key); `nil` for all.
    ///   - repeat: How many deliveries fail (default: all).
    /// - Returns: The rule's id.
    @discardableResult
    public func failDelivery(
        on channel: DeliveryChannel, destination: String? = nil, repeat: FaultRepeat = .always
    ) -> FaultRuleID {
        state.withLock { state in
            let id = state.makeID()
            state.deliveryRules.append(
                DeliveryRule(id: id, channel: channel, destination: destination, remaining: Self.count(`repeat`)))
            return id
        }
    }

    /// Sets how far the emulated server's clock is ahead of the sandbox clock (negative:
    /// behind). Backends read server time from ``SandboxContext/time``.
    /// - Parameters:
    ///   - offset: The skew, e.g. `.seconds(-90)`.
    ///   - host: Only this host; `nil` sets the default for every host without its own offset.
    public func setServerClockOffset(_ offset: Duration, host: String? = nil) {
        state.withLock { state in
            if let host { state.offsets[host] = offset } else { state.globalOffset = offset }
        }
    }

    /// The server clock offset applied to `host`.
    public func serverClockOffset(for host: String) -> Duration {
        state.withLock { $0.offsets[host] ?? $0.globalOffset }
    }

    /// Removes one rule (request or delivery rule). Removing an unknown id does nothing.
    public func remove(_ id: FaultRuleID) {
        state.withLock { state in
            state.rules.removeAll { $0.id == id }
            state.deliveryRules.removeAll { $0.id == id }
        }
    }

    /// Removes every rule and resets every clock offset.
    public func removeAll() {
        state.withLock { state in
            state.rules.removeAll()
            state.deliveryRules.removeAll()
            state.offsets.removeAll()
            state.globalOffset = .zero
        }
    }

    /// How many times rule `id` has fired so far (a request or delivery it changed), counted
    /// also after the rule was used up or removed; `0` for an unknown id. A rate-limit rule
    /// counts the requests it refused. Stress tests use it to report how many faults a run
    /// injected.
    public func fireCount(for id: FaultRuleID) -> Int {
        state.withLock { $0.firings[id, default: 0] }
    }

    /// An active rule as the control API and the inspector list it.
    package struct RuleSummary: Sendable, Hashable {
        /// The rule's id.
        package let id: FaultRuleID
        /// `latency`, `status`, `dropConnection`, `rateLimit` or `failDelivery`.
        package let kind: String
        /// The action, e.g. `latency(2.0 seconds)`, or `failDelivery(whatsapp)`.
        package let detail: String
        /// The host matched (`nil`: every host).
        package let host: String?
        /// The path prefix matched (request rules).
        package let pathPrefix: String
        /// The destination matched (delivery rules; `nil`: every destination).
        package let destination: String?
        /// Firings left (`nil`: until removed).
        package let remaining: Int?
        /// The chance it fires.
        package let probability: Double
        /// How often it fired.
        package let fired: Int
    }

    /// The active rules in evaluation order (request rules, then delivery rules).
    package var activeRules: [RuleSummary] {
        state.withLock { state in
            state.rules.map { rule in
                let kind: String
                switch rule.action {
                case .latency: kind = "latency"
                case .responseLatency: kind = "responseLatency"
                case .status: kind = "status"
                case .dropConnection: kind = "dropConnection"
                case .rateLimit: kind = "rateLimit"
                }
                return RuleSummary(
                    id: rule.id, kind: kind, detail: rule.action.description, host: rule.host,
                    pathPrefix: rule.pathPrefix, destination: nil, remaining: rule.remaining,
                    probability: rule.probability, fired: state.firings[rule.id, default: 0])
            }
                + state.deliveryRules.map { rule in
                    RuleSummary(
                        id: rule.id, kind: "failDelivery", detail: "failDelivery(\(rule.channel.rawValue))", host: nil,
                        pathPrefix: "", destination: rule.destination, remaining: rule.remaining, probability: 1,
                        fired: state.firings[rule.id, default: 0])
                }
        }
    }

    /// The server clock offsets set per host, and the default for the others.
    package var clockOffsets: (byHost: [String: Duration], default: Duration) {
        state.withLock { ($0.offsets, $0.globalOffset) }
    }

    /// The number of request and delivery rules still active.
    public var activeRuleCount: Int {
        state.withLock { $0.rules.count + $0.deliveryRules.count }
    }

    /// Whether a delivery to `destination` on `channel` fails now; uses up one firing of the
    /// matching rule.
    public func deliveryFails(on channel: DeliveryChannel, to destination: String) -> Bool {
        state.withLock { $0.deliveryFails(on: channel, to: destination) }
    }

    /// Decides what happens to a request to `host` + `path` arriving at sandbox time `now`.
    func evaluate(host: String, path: String, now: Date) -> Decision {
        state.withLock { $0.evaluate(host: host, path: path, now: now) }
    }

    private static func rateLimited(retryAfter seconds: Int) -> HTTPResponse {
        let body = Data(#"{"code":"rate_limited","retryAfter":\#(seconds)}"#.utf8)
        return HTTPResponse(
            status: 429, headers: ["Content-Type": "application/json", "Retry-After": String(seconds)], body: body)
    }
}
