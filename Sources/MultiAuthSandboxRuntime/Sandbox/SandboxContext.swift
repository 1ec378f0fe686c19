import Foundation
import MultiAuth

/// What a ``SandboxBackend`` gets with each request: the server's time, the inbox, the seeded
/// random source and the fault plan.
public struct SandboxContext: Sendable {
    /// The host the request was sent to.
    public let host: String
    /// The server's time: the sandbox's ``ManualClock`` with the fault plan's server clock
    /// offset for ``host`` added to `now` (sleeping uses the same clock, unshifted).
    public let time: TimeSource
    /// Where delivered codes and links land.
    public let inbox: Inbox
    /// The sandbox's seeded random source, for codes, tokens and ids.
    public let random: SandboxRandom
    /// The sandbox's fault plan (for channel delivery failures).
    public let faults: FaultPlan
    /// The sandbox's fixed codes per destination (``oneTimeCode(digits:for:)`` reads them).
    public let fixedCodes: FixedCodes

    /// Creates a context (the ``Sandbox`` does this for every request).
    /// - Parameters:
    ///   - host: The host the request was sent to.
    ///   - time: The server's time.
    ///   - inbox: Where codes and links land.
    ///   - random: The seeded random source.
    ///   - faults: The fault plan.
    ///   - fixedCodes: Fixed codes per destination (default: none).
    public init(
        host: String, time: TimeSource, inbox: Inbox, random: SandboxRandom, faults: FaultPlan,
        fixedCodes: FixedCodes = FixedCodes()
    ) {
        self.host = host
        self.time = time
        self.inbox = inbox
        self.random = random
        self.faults = faults
        self.fixedCodes = fixedCodes
    }

    /// A one-time code of `count` digits for `destination`: its fixed code (``FixedCodes``)
    /// when one of that length is set, else `count` random digits from ``random``.
    /// - Parameters:
    ///   - count: The number of digits.
    ///   - destination: E.164 number or e-mail identity key.
    public func oneTimeCode(digits count: Int, for destination: String) -> String {
        if let fixed = fixedCodes.code(for: destination), fixed.utf8.count == count { return fixed }
        return random.digits(count)
    }

    /// "Sends" a code and/or link to `destination` on `channel`: records it in the ``inbox``
    /// as `.delivered`, or as `.failed` when the fault plan fails that channel.
    /// - Parameters:
    ///   - code: The one-time code, if any.
    ///   - link: The magic link, if any.
    ///   - destination: E.164 number or e-mail identity key.
    ///   - channel: The channel to use.
    /// - Returns: The recorded message; check its ``InboxMessage/status`` to decide on a
    ///   fallback.
    @discardableResult
    public func deliver(code: String?, link: URL? = nil, to destination: String, channel: DeliveryChannel)
        -> InboxMessage
    {
        let failed = faults.deliveryFails(on: channel, to: destination)
        return inbox.record(
            host: host, destination: destination, channel: channel, code: code, link: link,
            status: failed ? .failed : .delivered, at: time.now)
    }
}
