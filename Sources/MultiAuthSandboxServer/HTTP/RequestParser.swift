import Foundation

/// An incremental HTTP/1.1 request parser (RFC 9112) with every size bounded before work:
/// feed bytes with ``append(_:)`` as they arrive and take requests with ``next()``.
///
/// It keeps its position between calls, so a client trickling bytes costs linear work, never
/// a rescan. Strict where ambiguity would be a security problem (RFC 9112 §6.3, §11.2): both
/// `Content-Length` and `Transfer-Encoding`, differing `Content-Length`s, a transfer coding
/// other than `chunked`, obsolete line folding, a bare CR or LF, a missing or repeated `Host`
/// in HTTP/1.1 are each refused with `400` (or `501` for an unknown coding, `505` for another
/// version). Pipelined requests are returned one after another.
package struct RequestParser: Sendable {
    /// What ``next()`` found.
    package enum Event: Sendable {
        /// More bytes are needed.
        case needMore
        /// The head of a request that announced `Expect: 100-continue` is complete and its body
        /// is within the limit: the server should write `100 Continue` (once).
        case sendContinue
        /// A complete request.
        case request(ServerRequest)
        /// The input is not an acceptable request: answer `status` with `reason` and close.
        case invalid(status: Int, reason: String)
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(status: Int, reason: String)
    }

    private let limits: ServerLimits
    private var buffer: [UInt8] = []
    /// Where the next unread byte is in ``buffer``.
    private var position = 0
    /// Where the search for the end of the current line or header section resumes.
    private var scan = 0
    private var state: State = .head
    private var pending: ServerRequest?
    private var continueOwed = false
    private var trailerBytes = 0

    /// Creates a parser bounded by `limits`.
    package init(limits: ServerLimits) { self.limits = limits }

    /// Whether a request has started (bytes of it were received) but is not complete.
    package var isInsideRequest: Bool {
        if case .head = state { return position < buffer.count }
        return true
    }

    /// Whether the head of the current request is complete (its body is being read).
    package var hasHead: Bool {
        if case .head = state { return false }
        return true
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if position > 0 && position == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            scan -= position
            position = 0
        } else if position > 65_536 {
            buffer.removeFirst(position)
            scan -= position
            position = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    package mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next event the buffered bytes allow.
    package mutating func next() -> Event {
        while true {
            switch state {
            case .failed(let status, let reason):
                return .invalid(status: status, reason: reason)
            case .head:
                if let event = readHead() { return event }
            case .fixedBody(let remaining):
                let available = buffer.count - position
                let take = min(available, remaining)
                pending?.body.append(contentsOf: buffer[position..<(position + take)])
                position += take
                scan = position
                if take < remaining {
                    state = .fixedBody(remaining: remaining - take)
                    return .needMore
                }
                state = .head
                return .request(takePending())
            case .chunkSize:
                if let event = readChunkSize() { return event }
            case .chunkData(let remaining):
                let available = buffer.count - position
                let take = min(available, remaining)
                pending?.body.append(contentsOf: buffer[position..<(position + take)])
                position += take
                scan = position
                if take < remaining {
                    state = .chunkData(remaining: remaining - take)
                    return .needMore
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard buffer.count - position >= 2 else { return .needMore }
                guard buffer[position] == 13, buffer[position + 1] == 10 else {
                    return fail(400, "a chunk is not followed by CRLF")
                }
                position += 2
                scan = position
                state = .chunkSize
            case .trailers:
                if let event = readTrailerLine() { return event }
            }
        }
    }

    // MARK: - States of next()

    /// `.head`: parses a complete header section and moves to its body; `nil` when ``next()``
    /// goes on (a body follows, no `100 Continue` is owed).
    @inline(__always)
    private mutating func readHead() -> Event? {
        guard let end = findHeadEnd() else {
            if let failure = headOverflow() { return fail(failure.0, failure.1) }
            return .needMore
        }
        let head = Array(buffer[position..<end])
        position = end + 4
        scan = position
        switch parseHead(head) {
        case .failure(let failure): return fail(failure.status, failure.reason)
        case .success(let (request, framing)):
            pending = request
            switch framing {
            case .none:
                state = .head
                return .request(takePending())
            case .length(let length):
                state = .fixedBody(remaining: length)
            case .chunked:
                state = .chunkSize
            }
            if continueOwed {
                continueOwed = false
                return .sendContinue
            }
            return nil
        }
    }

    /// `.chunkSize`: reads a chunk size line; `nil` when ``next()`` goes on (to the chunk's data
    /// or, after the last chunk, the trailers).
    @inline(__always)
    private mutating func readChunkSize() -> Event? {
        guard let lineEnd = findLineEnd(limit: 1024) else {
            if buffer.count - position > 1024 { return fail(400, "a chunk size line is too long") }
            return .needMore
        }
        let line = String(decoding: buffer[position..<lineEnd], as: UTF8.self)
        position = lineEnd + 2
        scan = position
        let sizeField = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !sizeField.isEmpty, sizeField.count <= 8, sizeField.allSatisfy(\.isHexDigit),
            let size = Int(sizeField, radix: 16)
        else { return fail(400, "a chunk size is not a hexadecimal number") }
        if size == 0 {
            state = .trailers
            trailerBytes = 0
            return nil
        }
        guard (pending?.body.count ?? 0) + size <= limits.maximumBodyBytes else {
            return fail(413, "the request body is larger than \(limits.maximumBodyBytes) bytes")
        }
        state = .chunkData(remaining: size)
        return nil
    }

    /// `.trailers`: reads and drops one trailer field (RFC 9112 §7.1.2), bounded like headers;
    /// the empty line completes the request. `nil` when ``next()`` goes on.
    @inline(__always)
    private mutating func readTrailerLine() -> Event? {
        guard let lineEnd = findLineEnd(limit: limits.maximumHeaderBytes) else {
            if trailerBytes + buffer.count - position > limits.maximumHeaderBytes {
                return fail(431, "the trailer section is too large")
            }
            return .needMore
        }
        let length = lineEnd - position
        trailerBytes += length + 2
        position = lineEnd + 2
        scan = position
        if trailerBytes > limits.maximumHeaderBytes { return fail(431, "the trailer section is too large") }
        if length == 0 {
            state = .head
            return .request(takePending())
        }
        return nil
    }

    private mutating func takePending() -> ServerRequest {
        let request = pending!
        pending = nil
        return request
    }

    private mutating func fail(_ status: Int, _ reason: String) -> Event {
        state = .failed(status: status, reason: reason)
        return .invalid(status: status, reason: reason)
    }

    /// The index of the `\r\n\r\n` ending the header section, searching from ``scan``.
    private mutating func findHeadEnd() -> Int? {
        // Tolerate empty lines before a request line (RFC 9112 §2.2).
        while position + 1 < buffer.count, buffer[position] == 13, buffer[position + 1] == 10 {
            position += 2
            scan = max(scan, position)
        }
        var index = max(scan, position)
        let limit = min(buffer.count, position + limits.maximumHeaderBytes + 4)
        while index + 3 < limit {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        scan = max(position, index)
        return nil
    }

    /// The index of the CRLF ending the line at ``position`` (searching from ``scan``).
    private mutating func findLineEnd(limit: Int) -> Int? {
        var index = max(scan, position)
        let end = min(buffer.count, position + limit + 2)
        while index + 1 < end {
            if buffer[index] == 13, buffer[index + 1] == 10 { return index }
            index += 1
        }
        scan = max(position, index)
        return nil
    }

    /// The limit an incomplete head already broke, if any.
    private func headOverflow() -> (Int, String)? {
        let buffered = buffer.count - position
        // Bounded work per call: only the first maximumRequestLineBytes + 2 bytes are looked at.
        let window = buffer[position..<min(buffer.count, position + limits.maximumRequestLineBytes + 2)]
        if window.count > limits.maximumRequestLineBytes + 1, !window.contains(10) {
            return (414, "the request line is longer than \(limits.maximumRequestLineBytes) bytes")
        }
        if buffered > limits.maximumHeaderBytes {
            return (431, "the header section is larger than \(limits.maximumHeaderBytes) bytes")
        }
        return nil
    }

    private enum Framing {
        case none
        case length(Int)
        case chunked
    }

    private struct Failure: Error {
        let status: Int
        let reason: String
        init(_ status: Int, _ reason: String) {
            self.status = status
            self.reason = reason
        }
    }

    /// Parses a complete header section (without its final CRLF CRLF): the request and how its
    /// body is framed, or the status and reason it is refused with.
    private mutating func parseHead(_ head: [UInt8]) -> Result<(ServerRequest, Framing), Failure> {
        do throws(Failure) {
            let lines = try headLines(head)
            let line = try requestLine(lines[0])
            let headers = try headerFields(lines.dropFirst())
            let hosts = Self.values("Host", in: headers)
            if line.minor == 1 && hosts.count != 1 {
                throw Failure(400, "an HTTP/1.1 request needs exactly one Host header field")
            }
            if hosts.count > 1 { throw Failure(400, "more than one Host header field") }
            let request = ServerRequest(
                method: line.method, target: line.target, absoluteHost: line.absoluteHost,
                minorVersion: line.minor, headers: headers, body: Data())
            return .success((request, try framing(headers, minor: line.minor)))
        } catch {
            return .failure(error)
        }
    }

    /// The head's lines, the request line first; a bare CR or LF anywhere in the head is refused
    /// (RFC 9112 §2.2: no lenient parsing), so are a NUL, an over-long request line and too
    /// many fields.
    private func headLines(_ head: [UInt8]) throws(Failure) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < head.count {
            let byte = head[index]
            if byte == 13 {
                guard index + 1 < head.count, head[index + 1] == 10 else {
                    throw Failure(400, "a bare CR in the header section")
                }
                lines.append(head[start..<index])
                index += 2
                start = index
                continue
            }
            if byte == 10 { throw Failure(400, "a bare LF in the header section") }
            if byte == 0 { throw Failure(400, "a NUL byte in the header section") }
            index += 1
        }
        lines.append(head[start..<head.count])
        guard let requestLine = lines.first else { throw Failure(400, "no request line") }
        guard requestLine.count <= limits.maximumRequestLineBytes else {
            throw Failure(414, "the request line is longer than \(limits.maximumRequestLineBytes) bytes")
        }
        guard lines.count - 1 <= limits.maximumHeaderCount else {
            throw Failure(431, "more than \(limits.maximumHeaderCount) header fields")
        }
        return lines
    }

    /// `METHOD target HTTP/1.x`, with an absolute-form target reduced to its path and host.
    private func requestLine(
        _ requestLine: ArraySlice<UInt8>
    ) throws(Failure) -> (method: String, target: String, absoluteHost: String?, minor: Int) {
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
            parts[0].allSatisfy(Self.isTokenByte), parts[1].allSatisfy({ $0 > 32 && $0 < 127 })
        else { throw Failure(400, "the request line is not 'METHOD target HTTP/1.x'") }
        let version = String(decoding: parts[2], as: UTF8.self)
        let minor: Int
        switch version {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default:
            if version.hasPrefix("HTTP/") { throw Failure(505, "only HTTP/1.0 and HTTP/1.1 are served") }
            throw Failure(400, "the request line is not 'METHOD target HTTP/1.x'")
        }
        let method = String(decoding: parts[0], as: UTF8.self)
        var target = String(decoding: parts[1], as: UTF8.self)
        var absoluteHost: String?
        if !target.hasPrefix("/") {
            if target == "*" && method == "OPTIONS" {
                // asterisk-form (RFC 9112 §3.2.4)
            } else if let url = URLComponents(string: target), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
            {
                // absolute-form (RFC 9112 §3.2.2): the server must accept it.
                absoluteHost = host.lowercased()
                let path = url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
                target = path + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
            } else {
                throw Failure(400, "the request target is not a path or an absolute http URL")
            }
        }
        return (method, target, absoluteHost, minor)
    }

    /// The header fields, names as sent and values trimmed of spaces and tabs.
    private func headerFields(
        _ lines: ArraySlice<ArraySlice<UInt8>>
    ) throws(Failure) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: 58) else {
                throw Failure(400, "a header field without a colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
                // Covers obsolete line folding (a line starting with SP or HTAB) and a space
                // before the colon (RFC 9112 §5.1, §5.2).
                throw Failure(400, "a malformed header field name")
            }
            let rawValue = line[line.index(after: colon)...]
            guard rawValue.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else {
                throw Failure(400, "a control character in a header field value")
            }
            let value = String(decoding: rawValue, as: UTF8.self).trimmingCharacters(
                in: CharacterSet(charactersIn: " \t"))
            headers.append((String(decoding: name, as: UTF8.self), value))
        }
        return headers
    }

    /// The values of every `field` header, in order (names compared case-insensitively).
    private static func values(_ field: String, in headers: [(name: String, value: String)]) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(field) == .orderedSame }.map(\.value)
    }

    /// How the body is framed (RFC 9112 §6.3): chunked, a length, or none; records whether a
    /// `100 Continue` is owed.
    private mutating func framing(
        _ headers: [(name: String, value: String)], minor: Int
    ) throws(Failure) -> Framing {
        let codings = Self.values("Transfer-Encoding", in: headers).flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
        let lengths = Self.values("Content-Length", in: headers).flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let expectsContinue = Self.values("Expect", in: headers).contains { $0.lowercased() == "100-continue" }
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw Failure(400, "both Content-Length and Transfer-Encoding (RFC 9112 §6.3)")
            }
            guard minor == 1 else { throw Failure(400, "Transfer-Encoding in an HTTP/1.0 request") }
            guard codings == ["chunked"] else {
                throw Failure(501, "only the chunked transfer coding is supported")
            }
            continueOwed = expectsContinue
            return .chunked
        }
        if !lengths.isEmpty {
            guard Set(lengths).count == 1, let text = lengths.first, !text.isEmpty, text.count <= 18,
                text.allSatisfy(\.isASCIIDigitCharacter), let length = Int(text)
            else { throw Failure(400, "a malformed or contradictory Content-Length") }
            guard length <= limits.maximumBodyBytes else {
                throw Failure(413, "the request body is larger than \(limits.maximumBodyBytes) bytes")
            }
            if length == 0 { return .none }
            continueOwed = expectsContinue
            return .length(length)
        }
        return .none
    }

    /// `tchar` of RFC 9110 §5.6.2.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension Character {
    /// Whether this is one of the ASCII digits `0`–`9` (not any Unicode digit).
    fileprivate var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
