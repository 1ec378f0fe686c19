import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthSandbox
import Testing

@Suite(.timeLimit(.minutes(10)))
struct InboxTests {
    let at = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func latestIsTheNewestDeliveredMessage() {
        let inbox = Inbox()
        inbox.record(
            host: "h", destination: "+15555550100", channel: .sms, code: "111111", link: nil, status: .delivered, at: at
        )
        inbox.record(
            host: "h", destination: "+15555550100", channel: .whatsapp, code: "222222", link: nil, status: .failed,
            at: at)
        inbox.record(
            host: "h", destination: "a@b.co", channel: .email, code: "333333", link: nil, status: .delivered, at: at)
        #expect(inbox.latest(for: "+15555550100")?.code == "111111")
        #expect(inbox.latest(for: "+15555550100", channel: .whatsapp) == nil)
        #expect(inbox.messages(for: "+15555550100").map(\.status) == [.delivered, .failed])
        #expect(inbox.count == 3)
        #expect(inbox.latest(for: "nobody@b.co") == nil)
    }

    @Test func descriptionRedactsCodeAndLink() {
        let inbox = Inbox()
        let message = inbox.record(
            host: "h", destination: "a@b.co", channel: .email, code: "987654", link: URL(string: "x://cb?code=987654"),
            status: .delivered, at: at)
        #expect(!message.description.contains("987654"))
        #expect(
            message.description == "InboxMessage(#1 email → a•••@b.co, delivered, code: <redacted>, link: <redacted>)")
    }

    @Test func noRenderingShowsTheCodeTheLinkOrTheDestination() {
        let inbox = Inbox()
        let message = inbox.record(
            host: "h", destination: "kim.planted@b.co", channel: .email, code: "987654",
            link: URL(string: "x://cb?state=s-4f3e2d"), status: .delivered, at: at)
        #expect(SecretRenderings.firstLeak(of: message, secrets: ["987654", "s-4f3e2d", "kim.planted"]) == nil)
        #expect(message.code == "987654" && message.destination == "kim.planted@b.co")
        #expect(message.link == URL(string: "x://cb?state=s-4f3e2d"))
    }

    @Test func nextWalksDeliveredMessagesInOrder() async throws {
        let inbox = Inbox()
        inbox.record(
            host: "h", destination: "a@b.co", channel: .email, code: "1", link: nil, status: .delivered, at: at)
        inbox.record(host: "h", destination: "a@b.co", channel: .email, code: "2", link: nil, status: .failed, at: at)
        inbox.record(
            host: "h", destination: "a@b.co", channel: .email, code: "3", link: nil, status: .delivered, at: at)
        #expect(try await inbox.next(for: "a@b.co").code == "1")
        #expect(try await inbox.next(for: "a@b.co").code == "3")
    }

    @Test func nextIsResumedByALaterDelivery() async throws {
        let inbox = Inbox()
        async let waited = inbox.next(for: "+15555550100", channel: .sms)
        // Not for this waiter: other destination, other channel, or not delivered.
        inbox.record(
            host: "h", destination: "+15555550199", channel: .sms, code: "0", link: nil, status: .delivered, at: at)
        inbox.record(
            host: "h", destination: "+15555550100", channel: .whatsapp, code: "0", link: nil, status: .delivered, at: at
        )
        let sent = inbox.record(
            host: "h", destination: "+15555550100", channel: .sms, code: "424242", link: nil, status: .sent, at: at)
        inbox.updateStatus(of: sent.id, to: .delivered, at: at.addingTimeInterval(2))
        let message = try await waited
        #expect(message.code == "424242")
        #expect(message.status == .delivered)
        #expect(message.statusChangedAt == at.addingTimeInterval(2))
    }

    @Test func cancellingAWaiterThrows() async {
        let inbox = Inbox()
        // Owned by this test; cancelled below and awaited.
        let task = Task { try await inbox.next(for: "a@b.co") }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func deliverConsultsTheFaultPlan() {
        let sandbox = Sandbox(seed: 1)
        sandbox.faults.failDelivery(on: .whatsapp, destination: "+15555550100", repeat: .once)
        let context = sandbox.context(for: "h")
        #expect(context.deliver(code: "1", to: "+15555550100", channel: .whatsapp).status == .failed)
        #expect(context.deliver(code: "2", to: "+15555550100", channel: .whatsapp).status == .delivered)
        #expect(context.deliver(code: "3", to: "+15555550101", channel: .whatsapp).status == .delivered)
        #expect(sandbox.inbox.latest(for: "+15555550100")?.code == "2")
    }
}
