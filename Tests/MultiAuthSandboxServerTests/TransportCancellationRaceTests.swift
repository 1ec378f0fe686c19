import Foundation
import MultiAuth
import MultiAuthHTTP
import MultiAuthSandboxRuntime
import Testing

/// `URLSessionTransport` over real loopback sockets, its caller cancelled at seeded moments
/// around the answer's arrival: every call ends, answered or with `CancellationError`. With
/// `URLSession.data(for:)` this race could deadlock on Linux (the runtime's task status lock
/// against the session's work queue; Sources/MultiAuthHTTP/URLSessionTransport.swift, `load(_:)`),
/// as a hung `multiauth conformance --server` showed. The suite's time limit is the hang guard.
@Suite(.timeLimit(.minutes(10)))
struct TransportCancellationRaceTests {
    @Test("400 rounds over loopback: a request cancelled as its twin's answer arrives ends, answered or cancelled")
    func cancellationRacingCompletionNeverHangs() async throws {
        let running = try RunningServer()
        defer { running.server.stopAndWait() }
        let url = URL(string: running.url.absoluteString + "/_multiauth/openapi.json")!
        var random = SeededRandomNumberGenerator(seed: 20_261_205)
        var answered = 0
        var cancelled = 0
        for _ in 0..<400 {
            // Two identical requests sent together: when the twin's answer arrives, this one's is
            // arriving too, so the cancellation lands around its completion.
            let yields = Int.random(in: 0...8, using: &random)
            let task = Task { try await running.transport.send(HTTPRequest(method: .get, url: url)) }
            let twin = Task { try await running.transport.send(HTTPRequest(method: .get, url: url)) }
            _ = try await twin.value
            for _ in 0..<yields { await Task.yield() }
            task.cancel()
            do {
                #expect(try await task.value.status == 200)
                answered += 1
            } catch is CancellationError {
                cancelled += 1
            }
        }
        #expect(answered + cancelled == 400)
        print("cancellation race over loopback: \(answered) answered, \(cancelled) cancelled")
    }
}
