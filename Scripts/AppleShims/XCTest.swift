// Shim module `XCTest` for Scripts/typecheck_apple.py (never shipped, never linked): exactly the
// UI-testing declarations Docs/Samples/EmulatorUITests.swift uses, each written from the Apple
// documentation page cited above it. Bodies are placeholders. It shadows the toolchain's
// XCTest (swift-corelibs-xctest, which has no UI testing) only inside the type-check.
@_exported import Foundation

/// https://developer.apple.com/documentation/xctest/xctestcase — `class XCTestCase : XCTest`
open class XCTestCase {
    public init() {}
}

/// https://developer.apple.com/documentation/xctest/xcuielement — `@MainActor class XCUIElement`
@MainActor
open class XCUIElement {
    private init() {}

    /// https://developer.apple.com/documentation/xctest/xcuielement/tap() — `func tap()`
    open func tap() { fatalError() }

    /// https://developer.apple.com/documentation/xctest/xcuielement/typetext(_:) — `func typeText(_ text: String)`
    open func typeText(_ text: String) { fatalError() }

    /// https://developer.apple.com/documentation/xctest/xcuielement/waitforexistence(timeout:)
    /// `func waitForExistence(timeout: TimeInterval) -> Bool`
    open func waitForExistence(timeout: TimeInterval) -> Bool { fatalError() }

    /// https://developer.apple.com/documentation/xctest/xcuielement/exists — `var exists: Bool { get }`
    open var exists: Bool { fatalError() }
}

/// https://developer.apple.com/documentation/xctest/xcuielementquery — `@MainActor class XCUIElementQuery`
@MainActor
open class XCUIElementQuery {
    private init() {}

    /// https://developer.apple.com/documentation/xctest/xcuielementquery/subscript(_:)
    /// `subscript(key: String) -> XCUIElement { get }`
    open subscript(key: String) -> XCUIElement { fatalError() }
}

/// https://developer.apple.com/documentation/xctest/xcuiapplication — `@MainActor class XCUIApplication : XCUIElement`
@MainActor
open class XCUIApplication {
    /// https://developer.apple.com/documentation/xctest/xcuiapplication/init() — `init()`
    public init() {}

    /// https://developer.apple.com/documentation/xctest/xcuiapplication/launcharguments — `var launchArguments: [String]`
    open var launchArguments: [String] = []

    /// https://developer.apple.com/documentation/xctest/xcuiapplication/launchenvironment
    /// `var launchEnvironment: [String : String]`
    open var launchEnvironment: [String: String] = [:]

    /// https://developer.apple.com/documentation/xctest/xcuiapplication/launch() — `func launch()`
    open func launch() { fatalError() }

    /// https://developer.apple.com/documentation/xctest/xcuielementtypequeryprovider/textfields
    /// `var textFields: XCUIElementQuery { get }`
    open var textFields: XCUIElementQuery { fatalError() }

    /// https://developer.apple.com/documentation/xctest/xcuielementtypequeryprovider/buttons
    /// `var buttons: XCUIElementQuery { get }`
    open var buttons: XCUIElementQuery { fatalError() }

    /// https://developer.apple.com/documentation/xctest/xcuielementtypequeryprovider/statictexts
    /// `var staticTexts: XCUIElementQuery { get }`
    open var staticTexts: XCUIElementQuery { fatalError() }
}

/// https://developer.apple.com/documentation/xctest/xctasserttrue(_:_:file:line:)
/// `func XCTAssertTrue(_ expression: @autoclosure () throws -> Bool, _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line)`
public func XCTAssertTrue(
    _ expression: @autoclosure () throws -> Bool, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) { fatalError() }

/// https://developer.apple.com/documentation/xctest/xctunwrap(_:_:file:line:)
/// `func XCTUnwrap<T>(_ expression: @autoclosure () throws -> T?, _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) throws -> T`
public func XCTUnwrap<T>(
    _ expression: @autoclosure () throws -> T?, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) throws -> T { fatalError() }
