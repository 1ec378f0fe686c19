import MultiAuthCrypto

/// A Lua script run with `EVALSHA` (its SHA-1 computed by libcrypto/CryptoKit), falling back
/// to `EVAL` when the server does not have it cached (after a restart or `SCRIPT FLUSH`).
struct RedisScript: Sendable {
    let source: String
    let sha1: String

    init(_ source: String) {
        self.source = source
        let digits = Array("0123456789abcdef")
        sha1 = String(MessageDigest.sha1(Array(source.utf8)).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// Compare-and-advance of a TOTP step. `ARGV[1]` is the new step as exactly 20 decimal
    /// digits (zero-padded), compared in two 10-digit halves so Lua's doubles stay exact for
    /// every `UInt64`; `ARGV[2]` is the TTL in milliseconds. Returns 1 when recorded, 0 when the
    /// stored step is the same or newer; a stored value that is not 20 digits is an error (the
    /// caller fails closed).
    static let advance = RedisScript(
        """
        local new = ARGV[1]
        local old = redis.call('GET', KEYS[1])
        if old then
          if string.len(old) ~= 20 or not string.match(old, '^%d+$') then
            return redis.error_reply('MULTIAUTH the stored step is not 20 digits')
          end
          local oldHigh, newHigh = tonumber(string.sub(old, 1, 10)), tonumber(string.sub(new, 1, 10))
          if oldHigh > newHigh then return 0 end
          if oldHigh == newHigh and tonumber(string.sub(old, 11, 20)) >= tonumber(string.sub(new, 11, 20)) then
            return 0
          end
        end
        redis.call('SET', KEYS[1], new, 'PX', ARGV[2])
        return 1
        """)

    /// A fixed-window counter: `INCR`, the window set with `PEXPIRE` by the first hit (or when
    /// the key somehow has no expiry), and the remaining `PTTL` as retry-after. `ARGV[1]` is the
    /// window in milliseconds. Returns `{count, pttl}`.
    static let counter = RedisScript(
        """
        local count = redis.call('INCR', KEYS[1])
        local ttl = redis.call('PTTL', KEYS[1])
        if count == 1 or ttl < 0 then
          redis.call('PEXPIRE', KEYS[1], ARGV[1])
          ttl = tonumber(ARGV[1])
        end
        return {count, ttl}
        """)
}

extension RedisClient {
    /// Runs `script` on one key, then `WAIT replicas timeout` in the same round trip when
    /// `replicas` > 0.
    ///
    /// - Returns: the script's reply (an error reply is thrown as `serverError`).
    /// - Throws: ``StoreUnavailableError``: `serverError` (with the error's first word),
    ///   `replicationUnconfirmed`, or the transport's errors.
    func run(_ script: RedisScript, key: String, arguments: [String], replicas: Int, replicationTimeout: Int64)
        async throws -> RESPValue
    {
        let wait = replicas > 0 ? [["WAIT", String(replicas), String(replicationTimeout)]] : []
        var replies = try await send([["EVALSHA", script.sha1, "1", key] + arguments] + wait)
        if replies.first?.errorWord == "NOSCRIPT" {
            replies = try await send([["EVAL", script.source, "1", key] + arguments] + wait)
        }
        return try checked(replies, replicas: replicas)
    }

    /// Runs one command, then `WAIT` as ``run(_:key:arguments:replicas:replicationTimeout:)``.
    func command(_ arguments: [String], replicas: Int, replicationTimeout: Int64) async throws -> RESPValue {
        let wait = replicas > 0 ? [["WAIT", String(replicas), String(replicationTimeout)]] : []
        return try checked(try await send([arguments] + wait), replicas: replicas)
    }

    private func checked(_ replies: [RESPValue], replicas: Int) throws -> RESPValue {
        guard let first = replies.first else { throw StoreUnavailableError(.malformedReply, "Redis sent no reply") }
        if let word = first.errorWord {
            throw StoreUnavailableError(.serverError, "Redis answered with an error (\(word))")
        }
        if replicas > 0 {
            guard replies.count == 2, case .integer(let acknowledged) = replies[1] else {
                throw StoreUnavailableError(.malformedReply, "Redis did not answer WAIT with an integer")
            }
            guard acknowledged >= Int64(replicas) else {
                throw StoreUnavailableError(
                    .replicationUnconfirmed, "\(acknowledged) of \(replicas) replicas acknowledged the write")
            }
        }
        return first
    }
}
