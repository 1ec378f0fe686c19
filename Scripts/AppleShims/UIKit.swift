// Shim module `UIKit` for Scripts/typecheck_apple.py (never shipped, never linked): exactly the
// UIKit declarations MultiAuthTruecaller's app hand-off uses, and `UIWindow` (the iOS
// `ASPresentationAnchor` of the AuthenticationServices shim), each written from the Apple
// documentation page cited above it. Bodies are placeholders.
@_exported import Foundation

/// https://developer.apple.com/documentation/uikit/uiresponder — `@MainActor class UIResponder`
@MainActor
open class UIResponder {}

/// https://developer.apple.com/documentation/uikit/uiview — `@MainActor class UIView : UIResponder`
@MainActor
open class UIView: UIResponder {}

/// https://developer.apple.com/documentation/uikit/uiwindow — `@MainActor class UIWindow : UIView`
@MainActor
open class UIWindow: UIView {}

/// https://developer.apple.com/documentation/uikit/uiapplication — `@MainActor class UIApplication`
@MainActor
open class UIApplication: UIResponder {
    private override init() {}

    /// https://developer.apple.com/documentation/uikit/uiapplication/shared — `class var shared: UIApplication { get }`
    open class var shared: UIApplication { fatalError() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/canopenurl(_:) — `func canOpenURL(_ url: URL) -> Bool`
    open func canOpenURL(_ url: URL) -> Bool { fatalError() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/open(_:options:completionhandler:)
    /// `func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey : Any] = [:], completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil)`
    open func open(
        _ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
        completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) { fatalError() }

    /// The same page, "Concurrency Note": the method is also imported as
    /// `func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey : Any] = [:]) async -> Bool`
    open func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:]) async -> Bool { fatalError() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey
    /// `struct OpenExternalURLOptionsKey` (`RawRepresentable` with a `String` raw value)
    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public init(rawValue: String) { self.rawValue = rawValue }
        public let rawValue: String
    }
}
