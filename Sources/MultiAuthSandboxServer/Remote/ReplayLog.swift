import Foundation
import MultiAuth
import MultiAuthCrypto
import MultiAuthLocking
import MultiAuthSandbox

/// The exchanges a run made with a server, kept so they can be replayed against the same
/// backends in this process: each request again, in the order the server's backends handled
/// them (`X-MultiAuth-Order`), at the same clock reading, and each answer compared byte for byte
/// (Docs/Emulator.md, "Proving the server equivalent"). Test support (`package`); thread-safe.
package final class ReplayLog: Sendable {
    /// One exchange with the server.
    package struct Entry: Sendable {
        /// The link (one world) it went through.
        package let link: ServerLink
        /// The backend host.
        package let host: String
        /// The request as the local sandbox's backend got it (`https://<host>/…`).
        package let request: HTTPRequest
        /// The server's answer.
        package let response: HTTPResponse
        /// The manual clock's reading the server was set to.
        package let elapsed: Duration
        /// The host's server clock offset the server was set to.
        package let offset: Duration
        /// The request's place in the server world's handling order (`X-MultiAuth-Order`).
        package let serverIndex: Int
    }

    private let entries = Locked([Entry]())

    /// Creates an empty log.
    package init() {}

    /// Adds an exchange.
    package func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// The exchanges so far.
    package var all: [Entry] { entries.withLock { $0 } }

    /// Replays every world's exchanges against fresh in-process backends made as the server
    /// made its world (`settings`, `signingKey`) and returns one sentence per difference:
    /// an answer that is not byte for byte the server's (status, header fields other than the
    /// framing ones and the server's `X-MultiAuth-Order`, body), or an inbox that differs.
    /// - Returns: The differences (empty: identical) and the number of exchanges compared.
    package func replay(signingKey: PrivateKey) async -> (differences: [String], exchanges: Int) {
        var worlds: [ObjectIdentifier: [Entry]] = [:]
        var order: [ObjectIdentifier] = []
        for entry in all {
            let id = ObjectIdentifier(entry.link)
            if worlds[id] == nil { order.append(id) }
            worlds[id, default: []].append(entry)
        }
        var differences: [String] = []
        var compared = 0
        for id in order {
            let entries = worlds[id, default: []].sorted { $0.serverIndex < $1.serverIndex }
            guard let link = entries.first?.link, case .manual(let start) = link.settings.clock else { continue }
            let sandbox = Sandbox(seed: link.settings.seed, clock: ManualClock(start: start))
            do {
                try EmulatorWorld.installBackends(into: sandbox, settings: link.settings, signingKey: signingKey)
            } catch {
                differences.append("the replay world could not be made: \(error)")
                continue
            }
            for entry in entries {
                sandbox.clock.advance(to: ManualClock.Instant(offset: entry.elapsed))
                sandbox.faults.setServerClockOffset(entry.offset, host: entry.host)
                let answer: HTTPResponse
                do { answer = try await sandbox.serve(entry.request) } catch {
                    differences.append("\(entry.request): the replay threw \(error)")
                    continue
                }
                compared += 1
                let recorder = ExchangeRecorder()
                recorder.record(host: entry.host, request: entry.request, response: entry.response)
                recorder.record(host: entry.host, request: entry.request, response: answer)
                let pair = recorder.exchanges
                let server = pair[0]
                if server != pair[1] {
                    differences.append(
                        "\(pair[1].request.prefix(120)): the server answered \(server.status) '\(server.responseContent.suffix(160))', in-process \(pair[1].status) '\(pair[1].responseContent.suffix(160))'"
                    )
                }
            }
            let mirrored = link.sandbox.inbox.allMessages.map(Self.summary)
            let replayed = sandbox.inbox.allMessages.map(Self.summary)
            if mirrored != replayed {
                differences.append(
                    "the server's inbox (\(mirrored.count) messages) differs from the replay's (\(replayed.count))")
            }
        }
        return (differences, compared)
    }

    private static func summary(_ message: InboxMessage) -> String {
        "\(message.id) \(message.host) \(message.destination) \(message.channel.rawValue) \(message.code ?? "-") \(message.link?.absoluteString ?? "-") \(message.status.rawValue)"
    }
}
