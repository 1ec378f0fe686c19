// An XCUITest against `multiauth serve` (Docs/Emulator.md, "A UI test"). Apple-only: on Linux
// Scripts/typecheck_apple.py type-checks it against shims of XCTest's UI-testing API.
#if canImport(XCTest) && canImport(UIKit)
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@MainActor
final class SignInUITests: XCTestCase {
    /// Where `multiauth serve` listens: the scheme's environment, or the port CI passes.
    let server = URL(string: ProcessInfo.processInfo.environment["MULTIAUTH_SANDBOX_URL"] ?? "http://127.0.0.1:4010")!

    /// A control-API call; the JSON answer.
    func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: server.appendingPathComponent("_multiauth").appendingPathComponent(path))
        request.httpMethod = method
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func testSignInWithTheCodeTheEmulatorSent() async throws {
        _ = try await control("POST", "reset")
        let app = XCUIApplication()
        app.launchArguments += ["-multiauth-sandbox-url", server.absoluteString]
        app.launch()

        let email = app.textFields["email"]
        XCTAssertTrue(email.waitForExistence(timeout: 10))
        email.tap()
        email.typeText("ada@example.com")
        app.buttons["Send code"].tap()

        // The long-poll returns the code the moment the emulated backend sends it.
        let message = try await control("GET", "inbox/ada@example.com/next")
        let code = try XCTUnwrap(message["code"] as? String)
        let field = app.textFields["code"]
        field.tap()
        field.typeText(code)
        app.buttons["Verify"].tap()
        XCTAssertTrue(app.staticTexts["Signed in as ada@example.com"].waitForExistence(timeout: 10))
    }

    func testAnExpiredCodeShowsTheExpiryMessage() async throws {
        _ = try await control("POST", "reset")
        let app = XCUIApplication()
        app.launchArguments += ["-multiauth-sandbox-url", server.absoluteString]
        app.launch()
        app.textFields["email"].tap()
        app.textFields["email"].typeText("late@example.com")
        app.buttons["Send code"].tap()
        let message = try await control("GET", "inbox/late@example.com/next")
        let code = try XCTUnwrap(message["code"] as? String)
        _ = try await control("POST", "clock/advance", ["seconds": 601])
        app.textFields["code"].tap()
        app.textFields["code"].typeText(code)
        app.buttons["Verify"].tap()
        XCTAssertTrue(app.staticTexts["The code has expired"].waitForExistence(timeout: 10))
    }
}
#endif
