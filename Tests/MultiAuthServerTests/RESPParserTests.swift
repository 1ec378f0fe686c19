import Foundation
import MultiAuthCrypto
import Testing

@testable import MultiAuthServer

/// Everything Redis answers is input too: the RESP reader's values, its bounds and its
/// refusals (Docs/Server.md, "Redis answers are input too").
@Suite(.timeLimit(.minutes(10)))  // hang guard only
struct RESPParserTests {
    func parse(_ text: String, limits: RESPLimits = RESPLimits()) throws -> (value: RESPValue, consumed: Int)? {
        try RESPParser.parse(Array(text.utf8)[...], limits: limits)
    }

    func refused(_ text: String, limits: RESPLimits = RESPLimits()) -> Bool {
        do {
            _ = try parse(text, limits: limits)
            return false
        } catch let error as StoreUnavailableError {
            return error.cause == .malformedReply
        } catch {
            return false
        }
    }

    @Test func readsEveryRESP2Type() throws {
        #expect(try parse("+OK\r\n")?.value == .simpleString("OK"))
        #expect(try parse("-NOSCRIPT No matching script\r\n")?.value.errorWord == "NOSCRIPT")
        #expect(try parse("-err lower case\r\n")?.value.errorWord == "ERR")
        #expect(try parse(":42\r\n")?.value == .integer(42))
        #expect(try parse(":-9223372036854775808\r\n")?.value == .integer(.min))
        #expect(try parse(":9223372036854775807\r\n")?.value == .integer(.max))
        #expect(try parse("$3\r\nfoo\r\n")?.value == .bulkString(Array("foo".utf8)))
        #expect(try parse("$0\r\n\r\n")?.value == .bulkString([]))
        #expect(try parse("$-1\r\n")?.value == .bulkString(nil))
        #expect(try parse("*-1\r\n")?.value == .array(nil))
        let nested = try parse("*2\r\n:1\r\n*1\r\n$2\r\nhi\r\n+rest")
        #expect(nested?.value == .array([.integer(1), .array([.bulkString(Array("hi".utf8))])]))
        #expect(nested?.consumed == 20)  // "+rest" is left for the next reply
    }

    @Test func everyPrefixOfAReplyAsksForMoreBytes() throws {
        let reply = Array("*3\r\n:7\r\n$5\r\nhello\r\n+OK\r\n".utf8)
        for end in 0..<reply.count {
            #expect(try RESPParser.parse(reply[0..<end]) == nil, "prefix of \(end) bytes")
        }
        #expect(try RESPParser.parse(reply[...])?.consumed == reply.count)
    }

    @Test func refusesNumbersThatAreNotExactDecimals() {
        for text in [
            ":+1\r\n", ":01\r\n", ":-0\r\n", ": 1\r\n", ":1 \r\n", ":\r\n", ":9223372036854775808\r\n",
            ":-9223372036854775809\r\n", ":99999999999999999999\r\n", ":0x10\r\n", ":١\r\n",
        ] {
            #expect(refused(text), "\(text.debugDescription)")
        }
    }

    @Test func refusesLengthsAndShapesPastTheBounds() {
        var limits = RESPLimits()
        limits.maximumBulkBytes = 16
        #expect(refused("$17\r\n", limits: limits))
        #expect(refused("$-2\r\n"))
        #expect(refused("$9223372036854775807\r\n"))
        #expect(refused("*65\r\n"))
        #expect(refused("*-2\r\n"))
        #expect(refused("*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n"))  // depth 5 > 4
        #expect(refused("+" + String(repeating: "a", count: 1025) + "\r\n"))
        #expect(refused("+" + String(repeating: "a", count: 2000)))  // no CRLF yet, already too long
        #expect(refused("$3\r\nfooXY"))
        #expect(refused("+OK\n"))
        #expect(refused("+O\rK\r\n"))
        #expect(refused("+\u{1}\r\n"))
        // RESP3-only types are not accepted (the client never sends HELLO 3).
        for type in ["_", "#", ",", "%", "~", "(", "!", "=", ">", "|"] {
            #expect(refused(type + "x\r\n"), "type \(type)")
        }
        var small = RESPLimits()
        small.maximumReplyBytes = 64
        #expect(refused("*8\r\n" + String(repeating: "$8\r\n12345678\r\n", count: 8), limits: small))
    }

    @Test func encodesCommandsAsArraysOfBulkStrings() {
        var out: [UInt8] = []
        RESPParser.encode([Array("SET".utf8), Array("k\r\n".utf8), []], into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "*3\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$0\r\n\r\n")
    }

    @Test func readsRedisURLsAndNeverPrintsThePassword() throws {
        let plain = try RedisConfiguration(url: "redis://127.0.0.1:6390/3")
        #expect(plain.host == "127.0.0.1" && plain.port == 6390 && plain.database == 3 && plain.password == nil)
        let auth = try RedisConfiguration(url: "redis://:s%40cret@[::1]")
        #expect(auth.host == "::1" && auth.port == 6379 && auth.password == "s@cret" && auth.username == nil)
        let acl = try RedisConfiguration(url: "redis://app:pw@localhost:7000")
        #expect(acl.username == "app" && acl.password == "pw")
        #expect(!String(describing: auth).contains("cret"))
        #expect(!String(reflecting: auth).contains("cret"))
        var dump = ""
        Swift.dump(acl, to: &dump)
        #expect(!dump.contains("pw\""))
        for bad in [
            "rediss://host", "http://host", "redis://", "redis://host:0", "redis://host/x", "redis://host/10000",
        ] {
            #expect(throws: (any Error).self, "\(bad)") { _ = try RedisConfiguration(url: bad) }
        }
    }
}
