import Foundation
import MultiAuth
import MultiAuthConformance
import MultiAuthCrypto
import MultiAuthDynamic
import MultiAuthOTPless
import MultiAuthPortal
import MultiAuthSandbox
import MultiAuthTruecaller

/// Ready-made conformance runs of the built-in providers against their emulated backends:
/// what `multiauth conformance` prints and what each adapter's tests assert.
///
/// Each ``/MultiAuthConformance/ProviderConformance`` pairs a provider factory with its
/// ``/MultiAuthConformance/ConformanceHarness`` (identities, abilities with the reasons the others do not apply, error fixtures from
/// Docs/Providers, clock tolerance). Every provider's run is one file,
/// `BuiltInConformance+<Provider>.swift`, in one shape: `BuiltInConformance.<provider>()` (the
/// run), `<provider>Reasons` (why the abilities left out do not apply), a `<provider>Error`
/// fixture builder, then `ConformanceHarness.<provider>(…seed:)` (the harness), as
/// `ProviderConformance.reference(seed:)` and `ConformanceHarness.reference(host:seed:)` do.
/// Every provider uses its `.sandbox()` configuration, the one an app switches to for the
/// sandbox. Running one takes a few seconds: every check gets a fresh sandbox, provider and
/// `AuthClient`.
public enum BuiltInConformance {
    /// The reference provider and every built-in provider, in display order.
    public static func all() -> [(id: AuthProviderID, kit: ProviderConformance)] {
        [
            ("reference", ProviderConformance.reference()),
            (.dynamic, dynamic()),
            (.truecaller, truecaller()),
            (.portal, portal()),
            (.otpless, otpless()),
        ]
    }

    /// The run for `id` (`"reference"`, `"dynamic"`, `"truecaller"`, `"portal"`, `"otpless"`), or `nil`.
    public static func kit(for id: AuthProviderID) -> ProviderConformance? {
        all().first { $0.id == id }?.kit
    }

    /// One RSA-2048 key shared by every sandbox backend that signs (Dynamic JWTs, Truecaller
    /// profiles) in a process: the sandbox's process-wide key (key generation is slow, so it
    /// happens once per process).
    public static let sandboxSigningKey: PrivateKey = try! SandboxSigningKeys.rsa()

    /// The key every Dynamic backend of a run signs with (``sandboxSigningKey``).
    public static var dynamicSigningKey: PrivateKey { sandboxSigningKey }
}
