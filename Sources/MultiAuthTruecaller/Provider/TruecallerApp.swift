import Foundation

/// Whether the Truecaller app can take a one-tap profile request: the seam
/// ``TruecallerProvider`` asks before each one-tap sign-in (Docs/Providers/Truecaller.md,
/// "One-tap hand-off"). When it says no, a one-tap request with a fallback number runs the OTP
/// flow instead, and one without is refused with code 8 (`TruecallerNotInstalled`).
///
/// ``system`` asks UIKit (`canOpenURL("truesdk://")`, TrueSDK's `isTruecallerInstalled`) on
/// Apple platforms with UIKit and answers `false` everywhere else; tests and the sandbox pass
/// their own (the sandbox's emulated Truecaller app says whether it is installed).
///
/// Concurrency: a `Sendable` value; the closure may be called from any task.
public struct TruecallerApp: Sendable {
    /// Answers whether the Truecaller app is installed now. Called once per one-tap start.
    public var isInstalled: @Sendable () async -> Bool

    /// Creates a seam from a closure.
    /// - Parameter isInstalled: Whether the Truecaller app is installed now.
    public init(isInstalled: @escaping @Sendable () async -> Bool) {
        self.isInstalled = isInstalled
    }

    /// Never installed: one-tap requests fall back to the OTP flow (or are refused with code 8).
    public static let notInstalled = TruecallerApp { false }

    /// Always installed (tests, and the sandbox's emulated Truecaller app).
    public static let installed = TruecallerApp { true }

    /// The device's answer: with UIKit, whether `truesdk://` can be opened (needs `truesdk` in
    /// `LSApplicationQueriesSchemes`; `TruecallerAppHandoff.isTruecallerInstalled`); elsewhere
    /// ``notInstalled``.
    public static var system: TruecallerApp {
        #if canImport(UIKit)
        TruecallerApp { await TruecallerAppHandoff.isTruecallerInstalled }
        #else
        notInstalled
        #endif
    }
}
