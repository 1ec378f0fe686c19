// swift-tools-version:6.1
// MultiAuth: one sign-in API over several identity providers.
// No outside Swift packages: the toolchain's Foundation/Dispatch/Synchronization/Testing, plus the
// system's OpenSSL libcrypto on Linux (CryptoKit/Security on Apple platforms).
import PackageDescription

/// Targets that build on every platform link libcrypto only where CryptoKit is missing.
let cryptoSystemLibrary: Target.Dependency = .target(
    name: "CMultiAuthCrypto",
    condition: .when(platforms: [.linux, .android, .openbsd])
)

// Platforms: the issue asked for iOS 15 / macOS 12, but the core API is built on `Clock` and
// `Duration` (Docs/Architecture.md, "Time"), which Apple ships from iOS 16 / macOS 13 / tvOS 16 /
// watchOS 9. Those are therefore the floors.
let package = Package(
    name: "MultiAuth",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "MultiAuth", targets: ["MultiAuth"]),
        .library(name: "MultiAuthCrypto", targets: ["MultiAuthCrypto"]),
        .library(name: "MultiAuthHTTP", targets: ["MultiAuthHTTP"]),
        // `AuthModel`: an @Observable view of an AuthClient for SwiftUI (Observation, iOS 17+).
        .library(name: "MultiAuthObservation", targets: ["MultiAuthObservation"]),
        .library(name: "MultiAuthOTPless", targets: ["MultiAuthOTPless"]),
        .library(name: "MultiAuthDynamic", targets: ["MultiAuthDynamic"]),
        .library(name: "MultiAuthTruecaller", targets: ["MultiAuthTruecaller"]),
        .library(name: "MultiAuthPortal", targets: ["MultiAuthPortal"]),
        // `QRCode`: an ISO/IEC 18004 encoder (byte mode, level M) for otpauth enrolment links.
        .library(name: "MultiAuthQR", targets: ["MultiAuthQR"]),
        // The deterministic test runtime (clock, in-process transport, faults, inbox, fakes,
        // scripted transport); MultiAuthSandbox adds the emulated providers and re-exports it.
        .library(name: "MultiAuthSandboxRuntime", targets: ["MultiAuthSandboxRuntime"]),
        .library(name: "MultiAuthSandbox", targets: ["MultiAuthSandbox"]),
        .library(name: "MultiAuthConformance", targets: ["MultiAuthConformance"]),
        // The built-in providers wired to their emulators: `StandardSandbox` (the four emulated
        // backends plus their `.sandbox()` configurations in one call), `EmulatorSessions`, and the
        // built-in providers' conformance runs and recorded contracts.
        .library(name: "MultiAuthSandboxKit", targets: ["MultiAuthSandboxKit"]),
        // Server side across a fleet: replay and attempt stores (in-memory, Redis), the TOTP
        // verifier, the fleet set-up of every verifier, the store conformance kit (Docs/Server.md).
        .library(name: "MultiAuthServer", targets: ["MultiAuthServer"]),
        // `SandboxServer`: the emulated backends as one loopback HTTP/1.1 server with a control API
        // and an inspector page (what `multiauth serve` runs).
        .library(name: "MultiAuthSandboxServer", targets: ["MultiAuthSandboxServer"]),
        .executable(name: "multiauth", targets: ["MultiAuthCLI"]),
        .executable(name: "multiauth-bench", targets: ["MultiAuthBench"]),
        // MultiAuthPhoneCheck and MultiAuthCrossCheck are CI tools (Scripts/crosscheck_*.py), not
        // products: `swift build` builds them, `swift run MultiAuthCrossCheck` runs one.
    ],
    targets: [
        .systemLibrary(
            name: "CMultiAuthCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .yum(["openssl-devel"])]
        ),
        // `Locked`, the package's one lock box (package access only; in no product of its own).
        .target(name: "MultiAuthLocking"),
        .target(name: "MultiAuthCrypto", dependencies: ["MultiAuthLocking", cryptoSystemLibrary]),
        .target(name: "MultiAuth", dependencies: ["MultiAuthLocking"]),
        .target(name: "MultiAuthHTTP", dependencies: ["MultiAuthLocking", "MultiAuth"]),
        .target(name: "MultiAuthObservation", dependencies: ["MultiAuth"]),
        .target(name: "MultiAuthOTPless", dependencies: ["MultiAuthLocking", "MultiAuth", "MultiAuthCrypto"]),
        .target(name: "MultiAuthDynamic", dependencies: ["MultiAuthLocking", "MultiAuth", "MultiAuthCrypto"]),
        .target(name: "MultiAuthTruecaller", dependencies: ["MultiAuthLocking", "MultiAuth", "MultiAuthCrypto"]),
        .target(
            name: "MultiAuthPortal", dependencies: ["MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthQR"]),
        .target(name: "MultiAuthQR"),
        .target(name: "MultiAuthSandboxRuntime", dependencies: ["MultiAuthLocking", "MultiAuth"]),
        .target(
            name: "MultiAuthSandbox",
            dependencies: ["MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthSandboxRuntime"]),
        .target(
            name: "MultiAuthConformance",
            dependencies: ["MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthSandboxRuntime"]),
        // The loopback emulator server: POSIX sockets, the control API, the inspector page. Above the
        // runtime and the emulators, below the CLI; it imports no adapter.
        .target(
            name: "MultiAuthSandboxServer",
            dependencies: [
                "MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthSandboxRuntime", "MultiAuthSandbox",
            ]),
        // The built-in providers wired to their emulators (`StandardSandbox`, `EmulatorSessions`, the
        // built-in providers' conformance runs and contracts, the server equivalence run, shared by the
        // CLI and the tests): MultiAuthSandbox must not import adapters, so the wiring lives here.
        .target(
            name: "MultiAuthSandboxKit",
            dependencies: [
                "MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthSandbox", "MultiAuthConformance",
                "MultiAuthDynamic", "MultiAuthTruecaller", "MultiAuthPortal", "MultiAuthOTPless",
                "MultiAuthSandboxServer",
            ]),
        // Never the client API and never the sandbox (Docs/Architecture.md, "Module graph").
        .target(
            name: "MultiAuthServer",
            dependencies: [
                "MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthOTPless", "MultiAuthTruecaller",
                "MultiAuthDynamic",
            ]),
        .executableTarget(
            name: "MultiAuthCLI",
            dependencies: [
                "MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthHTTP", "MultiAuthSandbox",
                "MultiAuthConformance",
                "MultiAuthOTPless", "MultiAuthDynamic", "MultiAuthTruecaller",
                "MultiAuthPortal",
                "MultiAuthSandboxKit", "MultiAuthQR", "MultiAuthSandboxServer",
            ]
        ),
        // Bench-only C helpers: callgrind client requests, the bare-C durable write baseline, the
        // HMAC-SHA1 floor from precomputed key states (libcrypto's SHA-1).
        .target(name: "CMultiAuthBench", linkerSettings: [.linkedLibrary("crypto", .when(platforms: [.linux]))]),
        .executableTarget(
            name: "MultiAuthBench",
            dependencies: [
                "MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthSandbox", "MultiAuthDynamic",
                "MultiAuthTestKeys",
                "CMultiAuthBench", "MultiAuthServer", "MultiAuthSandboxServer", "MultiAuthHTTP", "MultiAuthSpawn",
                "MultiAuthColdStart",
                cryptoSystemLibrary,
            ]
        ),
        // Dev/CI tool for Scripts/crosscheck_phone.py: JSON lines in, parsed numbers out.
        .executableTarget(name: "MultiAuthPhoneCheck", dependencies: ["MultiAuth"]),
        // The bench's fresh-process cold start in an executable that links only MultiAuth, as an
        // app does (Docs/Performance.md); a dependency of the bench so that it is built with it.
        .executableTarget(name: "MultiAuthColdStart", dependencies: ["MultiAuthLocking", "MultiAuth"]),
        // Child processes for the tests and the bench through posix_spawn, not Foundation's Process
        // (Docs/Testing.md, "Child processes"); the C part declares the glibc extensions it needs.
        .target(name: "CMultiAuthSpawn", path: "Tests/CMultiAuthSpawn"),
        .target(name: "MultiAuthSpawn", dependencies: ["CMultiAuthSpawn"], path: "Tests/MultiAuthSpawn"),
        // Committed fixture signing keys for the tests (no RSA key is generated at test time).
        .target(name: "MultiAuthTestKeys", dependencies: ["MultiAuthCrypto"], path: "Tests/MultiAuthTestKeys"),
        .testTarget(name: "MultiAuthCryptoTests", dependencies: ["MultiAuthCrypto", "MultiAuthTestKeys"]),
        // One process of the two-process FileSessionStore test (not a product); the test finds it
        // next to the test bundle.
        .executableTarget(name: "MultiAuthStoreHammer", dependencies: ["MultiAuth"]),
        .testTarget(
            name: "MultiAuthTests",
            dependencies: [
                "MultiAuthLocking", "MultiAuth", "MultiAuthSandbox", "MultiAuthStoreHammer", "MultiAuthSpawn",
            ]),
        .testTarget(name: "MultiAuthHTTPTests", dependencies: ["MultiAuthHTTP", "MultiAuthSandbox"]),
        .testTarget(
            name: "MultiAuthObservationTests",
            dependencies: ["MultiAuthObservation", "MultiAuth", "MultiAuthSandbox", "MultiAuthConformance"]),
        .testTarget(
            name: "MultiAuthSandboxTests", dependencies: ["MultiAuthSandbox", "MultiAuthConformance"]),
        .testTarget(
            name: "MultiAuthConformanceTests",
            dependencies: ["MultiAuthConformance", "MultiAuthSandbox", "MultiAuthCrypto", "MultiAuthHTTP"]),
        .testTarget(name: "MultiAuthCLITests", dependencies: ["MultiAuthCLI", "MultiAuthSpawn"]),
        .testTarget(
            name: "MultiAuthSandboxKitTests",
            dependencies: [
                "MultiAuthSandboxKit", "MultiAuthSandbox", "MultiAuthHTTP",
                "MultiAuthTestKeys",
            ]),
        .testTarget(
            name: "MultiAuthSamples",
            dependencies: [
                "MultiAuth", "MultiAuthCrypto", "MultiAuthHTTP", "MultiAuthDynamic", "MultiAuthTruecaller",
                "MultiAuthPortal",
                "MultiAuthSandboxRuntime", "MultiAuthSandbox", "MultiAuthConformance", "MultiAuthSandboxKit",
                "MultiAuthObservation", "MultiAuthServer", "MultiAuthSandboxServer", "MultiAuthOTPless",
            ],
            path: "Docs/Samples"),
        .testTarget(
            name: "MultiAuthOTPlessTests",
            dependencies: [
                "MultiAuthOTPless", "MultiAuthSandbox", "MultiAuthConformance", "MultiAuthCrypto",
                "MultiAuthSandboxKit",
                "MultiAuthTestKeys",
            ]),
        .testTarget(
            name: "MultiAuthDynamicTests",
            dependencies: [
                "MultiAuthDynamic", "MultiAuthSandbox", "MultiAuthConformance", "MultiAuthCrypto",
                "MultiAuthSandboxKit",
                "MultiAuthTestKeys",
            ]),
        .testTarget(
            name: "MultiAuthTruecallerTests",
            dependencies: [
                "MultiAuthTruecaller", "MultiAuthSandbox", "MultiAuthConformance", "MultiAuthCrypto",
                "MultiAuthSandboxKit",
                "MultiAuthTestKeys",
            ]),
        .testTarget(name: "MultiAuthQRTests", dependencies: ["MultiAuthQR"]),
        .testTarget(
            name: "MultiAuthSandboxServerTests",
            dependencies: [
                "MultiAuthSandboxServer", "MultiAuthSandbox", "MultiAuthHTTP", "MultiAuthSandboxKit",
                "MultiAuthTestKeys", "MultiAuthDynamic", "MultiAuthTruecaller",
                "MultiAuthPortal", "MultiAuthOTPless", "MultiAuthCLI", "MultiAuthSpawn",
            ]),
        .testTarget(
            name: "MultiAuthPortalTests",
            dependencies: [
                "MultiAuthPortal", "MultiAuthSandbox", "MultiAuthConformance", "MultiAuthCrypto",
                "MultiAuthSandboxKit",
            ]),
        // Stress and fault matrix: thousands of concurrent flows through one sandbox
        // with random faults, and "process death" between every pair of steps.
        .testTarget(
            name: "MultiAuthStressTests",
            dependencies: [
                "MultiAuth", "MultiAuthCrypto", "MultiAuthSandbox",
                "MultiAuthDynamic", "MultiAuthTruecaller", "MultiAuthPortal", "MultiAuthOTPless", "MultiAuthTestKeys",
            ]),
        // Session lifecycle proof: a model-based randomized test of two clients on
        // one store, its mutation checks, and the named lifecycle scenarios.
        .testTarget(
            name: "MultiAuthModelTests", dependencies: ["MultiAuth", "MultiAuthSandbox", "MultiAuthConformance"]),
        // The rendering sweep (every public type of every library module, five
        // renderings, no planted secret) and every adapter request through a failing transport.
        .testTarget(
            name: "MultiAuthRedactionTests",
            dependencies: [
                "MultiAuth", "MultiAuthCrypto", "MultiAuthHTTP", "MultiAuthSandbox", "MultiAuthConformance",
                "MultiAuthSandboxKit",
                "MultiAuthDynamic", "MultiAuthTruecaller", "MultiAuthPortal", "MultiAuthOTPless",
                "MultiAuthObservation",
                "MultiAuthQR", "MultiAuthTestKeys", "MultiAuthServer",
            ]),
        // One verifier process of the fleet race tests (Tests/MultiAuthServerTests/RedisFleetTests.swift;
        // not a product): verifies what it is told on stdin against a shared Redis.
        .executableTarget(
            name: "MultiAuthFleetRacer",
            dependencies: [
                "MultiAuthLocking", "MultiAuth", "MultiAuthCrypto", "MultiAuthServer", "MultiAuthTruecaller",
                "MultiAuthOTPless",
                "MultiAuthDynamic", "MultiAuthTestKeys",
            ]),
        .testTarget(
            name: "MultiAuthServerTests",
            dependencies: [
                "MultiAuthServer", "MultiAuth", "MultiAuthCrypto", "MultiAuthSandboxRuntime", "MultiAuthTruecaller",
                "MultiAuthOTPless", "MultiAuthDynamic", "MultiAuthTestKeys", "MultiAuthFleetRacer", "MultiAuthSpawn",
                "MultiAuthSandbox", "MultiAuthConformance",
            ]),
        // Peer cross-check driver for Scripts/crosscheck_crypto.py and Scripts/crosscheck_webauthn.py
        // (JSON lines in, JSON lines out); its WebAuthn mode signs with the conformance kit's
        // SoftwareAuthenticator.
        .executableTarget(name: "MultiAuthCrossCheck", dependencies: ["MultiAuthCrypto", "MultiAuthConformance"]),
    ],
    swiftLanguageModes: [.v6]
)
