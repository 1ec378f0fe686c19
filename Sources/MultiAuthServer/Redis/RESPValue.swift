import MultiAuthCrypto

/// One RESP2 reply (the Redis serialization protocol; redis.io "RESP protocol spec"): what the
/// client accepts from a server, nothing more.
///
/// RESP3-only types are refused (the client never sends `HELLO 3`).
package indirect enum RESPValue: Sendable, Hashable {
    /// `+OK\r\n`.
    case simpleString(String)
    /// `-ERR …\r\n`; the text is the server's and is never shown beyond ``errorWord``.
    case error(String)
    /// `:42\r\n`.
    case integer(Int64)
    /// `$3\r\nfoo\r\n`, or `nil` for the null bulk string `$-1\r\n`.
    case bulkString([UInt8]?)
    /// `*2\r\n…`, or `nil` for the null array `*-1\r\n`.
    case array([RESPValue]?)

    /// For an error reply, its first word if it is 1–32 uppercase ASCII letters (`NOSCRIPT`,
    /// `WRONGPASS`, `READONLY`), else `ERR`: the only part of a server's error text that is
    /// logged.
    package var errorWord: String? {
        guard case .error(let text) = self else { return nil }
        let word = text.prefix { $0 != " " }
        guard (1...32).contains(word.count), word.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return "ERR" }
        return String(word)
    }
}

/// Bounds on what a reply may hold; past any of them the reply is refused and the connection
/// closed (Docs/Server.md, "Redis answers are input too").
package struct RESPLimits: Sendable {
    /// Longest simple string, error or integer line, without CRLF.
    package var maximumLineBytes = 1024
    /// Longest bulk string.
    package var maximumBulkBytes = 64 * 1024
    /// Most elements of one array.
    package var maximumArrayCount = 64
    /// Deepest nesting of arrays.
    package var maximumDepth = 4
    /// Most bytes of one reply altogether.
    package var maximumReplyBytes = 256 * 1024

    package init() {}
}

/// An incremental RESP2 reader: give it the bytes received so far; it returns one reply and
/// how many bytes it used, or `nil` when the bytes end inside a reply.
///
/// Every length and integer is parsed with overflow checks; anything else than RESP2, a
/// length past ``RESPLimits``, a missing CRLF or a non-digit is ``StoreUnavailableError``
/// (`malformedReply`).
package enum RESPParser {
    package static func parse(_ bytes: ArraySlice<UInt8>, limits: RESPLimits = RESPLimits()) throws -> (
        value: RESPValue, consumed: Int
    )? {
        var index = bytes.startIndex
        guard let value = try parseValue(bytes, &index, depth: 0, limits: limits) else {
            if bytes.count > limits.maximumReplyBytes {
                throw malformed("the reply exceeds \(limits.maximumReplyBytes) bytes")
            }
            return nil
        }
        let consumed = index - bytes.startIndex
        if consumed > limits.maximumReplyBytes {
            throw malformed("the reply exceeds \(limits.maximumReplyBytes) bytes")
        }
        return (value, consumed)
    }

    static func malformed(_ message: String) -> StoreUnavailableError {
        StoreUnavailableError(.malformedReply, "Redis reply refused: " + message)
    }

    /// The bytes of a line up to CRLF (index moved past it), or `nil` if CRLF has not arrived.
    private static func line(_ bytes: ArraySlice<UInt8>, _ index: inout Int, limits: RESPLimits) throws
        -> ArraySlice<UInt8>?
    {
        var cursor = index
        while cursor < bytes.endIndex {
            if bytes[cursor] == UInt8(ascii: "\r") {
                guard cursor + 1 < bytes.endIndex else { return nil }
                guard bytes[cursor + 1] == UInt8(ascii: "\n") else { throw malformed("CR without LF") }
                let text = bytes[index..<cursor]
                index = cursor + 2
                return text
            }
            if bytes[cursor] == UInt8(ascii: "\n") { throw malformed("LF without CR") }
            if cursor - index >= limits.maximumLineBytes {
                throw malformed("a line exceeds \(limits.maximumLineBytes) bytes")
            }
            cursor += 1
        }
        if cursor - index > limits.maximumLineBytes {
            throw malformed("a line exceeds \(limits.maximumLineBytes) bytes")
        }
        return nil
    }

    /// A decimal Int64: an optional `-`, then 1–19 digits, no `+`, no spaces, no leading zeros
    /// beyond a lone `0`, exact (overflow refused).
    package static func integer(_ text: ArraySlice<UInt8>) throws -> Int64 {
        var digits = text[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard (1...19).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw malformed("not a decimal integer")
        }
        guard digits.count == 1 || digits.first != UInt8(ascii: "0") else {
            throw malformed("an integer with a leading zero")
        }
        guard !(negative && digits == [UInt8(ascii: "0")]) else { throw malformed("negative zero") }
        var value: Int64 = 0
        for digit in digits {
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            // Negative numbers accumulate downwards so Int64.min is representable.
            let (next, o2) =
                negative
                ? shifted.subtractingReportingOverflow(Int64(digit - 0x30))
                : shifted.addingReportingOverflow(Int64(digit - 0x30))
            guard !o1, !o2 else { throw malformed("an integer out of the 64-bit range") }
            value = next
        }
        return value
    }

    private static func text(_ bytes: ArraySlice<UInt8>) throws -> String {
        // Simple strings and errors are printable ASCII here; anything else is refused.
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x09 }) else {
            throw malformed("a status line with control or non-ASCII bytes")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func parseValue(_ bytes: ArraySlice<UInt8>, _ index: inout Int, depth: Int, limits: RESPLimits)
        throws -> RESPValue?
    {
        guard index < bytes.endIndex else { return nil }
        let type = bytes[index]
        var cursor = index + 1
        guard let header = try line(bytes, &cursor, limits: limits) else { return nil }
        switch type {
        case UInt8(ascii: "+"):
            index = cursor
            return .simpleString(try text(header))
        case UInt8(ascii: "-"):
            index = cursor
            return .error(try text(header))
        case UInt8(ascii: ":"):
            index = cursor
            return .integer(try integer(header))
        case UInt8(ascii: "$"):
            let length = try integer(header)
            if length == -1 {
                index = cursor
                return .bulkString(nil)
            }
            guard length >= 0, length <= Int64(limits.maximumBulkBytes) else {
                throw malformed("a bulk string length outside 0...\(limits.maximumBulkBytes)")
            }
            let count = Int(length)
            guard bytes.endIndex - cursor >= count + 2 else { return nil }
            let body = Array(bytes[cursor..<(cursor + count)])
            guard bytes[cursor + count] == UInt8(ascii: "\r"), bytes[cursor + count + 1] == UInt8(ascii: "\n") else {
                throw malformed("a bulk string not followed by CRLF")
            }
            index = cursor + count + 2
            return .bulkString(body)
        case UInt8(ascii: "*"):
            let length = try integer(header)
            if length == -1 {
                index = cursor
                return .array(nil)
            }
            guard length >= 0, length <= Int64(limits.maximumArrayCount) else {
                throw malformed("an array length outside 0...\(limits.maximumArrayCount)")
            }
            guard depth < limits.maximumDepth else {
                throw malformed("arrays nested deeper than \(limits.maximumDepth)")
            }
            var elements: [RESPValue] = []
            elements.reserveCapacity(Int(length))
            for _ in 0..<Int(length) {
                guard let element = try parseValue(bytes, &cursor, depth: depth + 1, limits: limits) else { return nil }
                elements.append(element)
            }
            index = cursor
            return .array(elements)
        default:
            throw malformed("an unknown reply type byte \(type)")
        }
    }

    /// A command as a RESP array of bulk strings.
    package static func encode(_ arguments: [[UInt8]], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "*"))
        out.append(contentsOf: String(arguments.count).utf8)
        out.append(contentsOf: [0x0D, 0x0A])
        for argument in arguments {
            out.append(UInt8(ascii: "$"))
            out.append(contentsOf: String(argument.count).utf8)
            out.append(contentsOf: [0x0D, 0x0A])
            out.append(contentsOf: argument)
            out.append(contentsOf: [0x0D, 0x0A])
        }
    }
}
