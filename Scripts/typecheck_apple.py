#!/usr/bin/env python3
"""Type-check MultiAuth's Apple-only code on Linux (run by .ci/run).

Every `#if canImport(CryptoKit | Security | UIKit | Network | SwiftUI | AuthenticationServices)`
branch in Sources/ and Docs/Samples/ is compiled by nobody on Linux, and the repository has no
Apple CI. This script builds small shim modules named CryptoKit, Security, Network, UIKit,
SwiftUI and AuthenticationServices
(Scripts/AppleShims/, each declaration copied from the Apple documentation page cited next to
it) and then compiles the modules holding Apple-only code with those shims on the module search
path, so `canImport(X)` is true and the Apple branches are type-checked in full (Swift 6
language mode, warnings as errors), together with the rest of their module:

    MultiAuthCrypto (CryptoKit/Security backend) -> MultiAuth (SystemKeychain, the keychain
    store's init, SessionStores; PasskeyAuthorization, AuthenticationServices) -> MultiAuthHTTP
    (CellularTransport, Network),
    MultiAuthTruecaller (TruecallerAppHandoff, UIKit), MultiAuthObservation -> the SwiftUI
    sample (Docs/Samples/SignInView.swift), the passkey SwiftUI sample
    (Docs/Samples/PasskeySignInView.swift), and the XCUITest sample against the emulator
    (Docs/Samples/EmulatorUITests.swift, with an XCTest shim of the UI-testing API).

What it proves: every Apple API our code calls exists with the names, argument labels, types,
optionality and `@Sendable`/actor annotations Apple documents, and our code uses them in a way
that type-checks. What it cannot prove: behaviour, availability annotations (the shims carry
none), or Foundation differences between Apple and swift-corelibs-foundation (the Linux
Foundation stands in for Apple's). See Docs/Testing.md, "Apple-only code on Linux".

  python3 Scripts/typecheck_apple.py              # type-check (exit 1 on any error)
  python3 Scripts/typecheck_apple.py --self-test  # also prove it fails on planted mistakes

The self-test plants one typo and one wrong argument label per framework in a copy of our
Apple code and requires the type-check of that module to fail, with an error in that file.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIM_DIR = os.path.join(ROOT, "Scripts", "AppleShims")
APPLE_MODULES = ["CryptoKit", "Security", "UIKit", "Network", "SwiftUI", "AuthenticationServices"]
# XCTest exists on Linux (without UI testing); the sample that needs its UI-testing API is
# guarded by `canImport(XCTest) && canImport(UIKit)` and type-checked against the XCTest shim.

# Shim modules in build order: (module, shim modules it imports).
SHIMS = [
    ("AppleShimBase", []),
    ("Security", ["AppleShimBase"]),
    ("CryptoKit", []),
    ("Network", ["AppleShimBase"]),
    ("UIKit", []),
    ("AuthenticationServices", ["UIKit"]),
    ("SwiftUI", []),
    ("XCTest", []),
]

# Our modules in build order: (module, source files or directories).
UNITS = [
    ("MultiAuthLocking", ["Sources/MultiAuthLocking"]),
    ("MultiAuthCrypto", ["Sources/MultiAuthCrypto"]),
    ("MultiAuth", ["Sources/MultiAuth"]),
    ("MultiAuthHTTP", ["Sources/MultiAuthHTTP"]),
    ("MultiAuthTruecaller", ["Sources/MultiAuthTruecaller"]),
    ("MultiAuthObservation", ["Sources/MultiAuthObservation"]),
    ("MultiAuthSamplesSwiftUI", ["Docs/Samples/SignInView.swift"]),
    ("MultiAuthSamplesPasskeySwiftUI", ["Docs/Samples/PasskeySignInView.swift"]),
    ("MultiAuthSamplesUITests", ["Docs/Samples/EmulatorUITests.swift"]),
]

# Planted mistakes for --self-test: (what, file, original text, mutated text).
MUTATIONS = [
    ("Security, keychain: wrong argument label", "Sources/MultiAuth/Session/Keychain/SecurityFrameworkCalls.swift",
     "SecItemUpdate(Self.dictionary(query), Self.dictionary(attributesToUpdate))",
     "SecItemUpdate(query: Self.dictionary(query), Self.dictionary(attributesToUpdate))"),
    ("Security, keychain: typo", "Sources/MultiAuth/Session/Keychain/SecurityFrameworkCalls.swift",
     "case .accessGroup: kSecAttrAccessGroup", "case .accessGroup: kSecAttrAccesGroup"),
    ("Security, crypto: wrong argument label", "Sources/MultiAuthCrypto/Backend/Apple/CryptoBackend+CryptoKit.swift",
     "SecRandomCopyBytes(kSecRandomDefault, $0.count, $0.baseAddress!)",
     "SecRandomCopyBytes(kSecRandomDefault, count: $0.count, $0.baseAddress!)"),
    ("CryptoKit: wrong argument label", "Sources/MultiAuthCrypto/Backend/Apple/MACContext+CryptoKit.swift",
     "SymmetricKey(data: key)", "SymmetricKey(bytes: key)"),
    ("CryptoKit, Ed25519: wrong argument label", "Sources/MultiAuthCrypto/Backend/Apple/Ed25519+CryptoKit.swift",
     "Curve25519.Signing.PublicKey(rawRepresentation: publicKey)", "Curve25519.Signing.PublicKey(raw: publicKey)"),
    ("Security, certificates: typo", "Sources/MultiAuthCrypto/Backend/Apple/Ed25519+CryptoKit.swift",
     "SecCertificateCopyKey(certificate)", "SecCertificateCopyPublicKey(certificate)"),
    ("CryptoKit: typo", "Sources/MultiAuthCrypto/Backend/Apple/KeyHandle+CryptoKit.swift",
     "P256.Signing.PublicKey(x963Representation:", "P256.Signing.PublicKey(x963Representaton:"),
    ("Network: wrong argument label", "Sources/MultiAuthHTTP/CellularTransport.swift",
     "receive(minimumIncompleteLength: 1, maximumLength: 65_536)", "receive(minimumLength: 1, maximumLength: 65_536)"),
    ("Network: typo", "Sources/MultiAuthHTTP/CellularTransport.swift",
     "parameters.preferNoProxies = true", "parameters.preferNoProxy = true"),
    ("UIKit: typo", "Sources/MultiAuthTruecaller/Provider/TruecallerAppHandoff.swift",
     "UIApplication.shared.canOpenURL($0)", "UIApplication.shared.canOpenUrl($0)"),
    ("UIKit: wrong argument label", "Sources/MultiAuthTruecaller/Provider/TruecallerAppHandoff.swift",
     "await UIApplication.shared.open(requestURL)", "await UIApplication.shared.open(url: requestURL)"),
    ("UIKit seam (one-tap's TruecallerApp.system): typo", "Sources/MultiAuthTruecaller/Provider/TruecallerApp.swift",
     "await TruecallerAppHandoff.isTruecallerInstalled", "await TruecallerAppHandoff.isTruecallerInstaled"),
    ("SwiftUI: wrong argument label", "Docs/Samples/SignInView.swift",
     'TextField("Code", text: $code)', 'TextField("Code", value: $code)'),
    ("SwiftUI: typo", "Docs/Samples/SignInView.swift",
     ".task { await model.observe() }", ".tasks { await model.observe() }"),
    ("AuthenticationServices: typo", "Sources/MultiAuth/Provider/PasskeyAuthorization+AuthenticationServices.swift",
     "controller.presentationContextProvider = delegate", "controller.presentationContextProvidr = delegate"),
    ("AuthenticationServices: wrong argument label",
     "Sources/MultiAuth/Provider/PasskeyAuthorization+AuthenticationServices.swift",
     "ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)",
     "ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialId: $0)"),
    ("AuthenticationServices, passkey sample: wrong argument label", "Docs/Samples/PasskeySignInView.swift",
     "perform(challenge, anchor: anchor)", "perform(challenge, window: anchor)"),
    ("XCTest UI testing: wrong argument label", "Docs/Samples/EmulatorUITests.swift",
     "XCTAssertTrue(email.waitForExistence(timeout: 10))", "XCTAssertTrue(email.waitForExistence(seconds: 10))"),
    ("XCTest UI testing: typo", "Docs/Samples/EmulatorUITests.swift",
     "app.launchArguments += [\"-multiauth-sandbox-url\", server.absoluteString]\n        app.launch()\n\n",
     "app.launchArgument += [\"-multiauth-sandbox-url\", server.absoluteString]\n        app.launch()\n\n"),
]

SWIFTC = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"


def swift_files(paths):
    files = []
    for path in paths:
        full = os.path.join(ROOT, path)
        if os.path.isfile(full):
            files.append(full)
            continue
        for directory, _, names in os.walk(full):
            files.extend(os.path.join(directory, name) for name in names if name.endswith(".swift"))
    return sorted(files)


def compile_module(module, files, out_dir, search_paths, swift_version="6", strict=True):
    """Type-checks `files` as module `module` and writes its .swiftmodule to out_dir."""
    command = [
        SWIFTC, "-emit-module", "-parse-as-library", "-module-name", module,
        "-emit-module-path", os.path.join(out_dir, module + ".swiftmodule"),
        "-swift-version", swift_version, "-package-name", "multiauth",
        "-module-cache-path", os.path.join(out_dir, "ModuleCache"),
        "-DSWIFT_PACKAGE", "-DDEBUG", "-Onone",
    ]
    if strict:
        command.append("-warnings-as-errors")
    for path in search_paths:
        command += ["-I", path]
    command += files
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def build_shims(out_dir):
    for module, _ in SHIMS:
        source = os.path.join(SHIM_DIR, module + ".swift")
        # Apple's frameworks are not built in Swift 6 mode; neither are their shims.
        status, output = compile_module(module, [source], out_dir, [out_dir], swift_version="5", strict=False)
        if status != 0:
            sys.stderr.write(output)
            raise SystemExit(f"typecheck_apple: the {module} shim does not compile")


def coverage_check():
    """Every file with an Apple `canImport` branch must be in one of the units."""
    covered = set()
    for _, paths in UNITS:
        covered.update(swift_files(paths))
    pattern = re.compile(r"canImport\((%s)\)" % "|".join(APPLE_MODULES))
    missing = []
    for top in ["Sources", "Docs/Samples"]:
        for directory, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                path = os.path.join(directory, name)
                if name.endswith(".swift") and path not in covered:
                    with open(path, encoding="utf-8") as handle:
                        if pattern.search(handle.read()):
                            missing.append(os.path.relpath(path, ROOT))
    if missing:
        raise SystemExit("typecheck_apple: Apple-only code outside the checked modules (add its module to UNITS): "
                         + ", ".join(missing))


def typecheck(out_dir):
    build_shims(out_dir)
    failures = []
    for module, paths in UNITS:
        status, output = compile_module(module, swift_files(paths), out_dir, [out_dir])
        print(f"-- {module}: {'ok' if status == 0 else 'FAILED'}")
        if status != 0:
            sys.stderr.write(output)
            failures.append(module)
            break  # later modules import this one
    return failures


def self_test(out_dir):
    """Each planted mistake must fail its module's type-check with an error in that file."""
    unit_of = {}
    for module, paths in UNITS:
        for path in swift_files(paths):
            unit_of[path] = (module, paths)
    failures = []
    scratch_root = os.path.join(out_dir, "self-test")
    for index, (what, relative, original, mutated) in enumerate(MUTATIONS):
        target = os.path.join(ROOT, relative)
        with open(target, encoding="utf-8") as handle:
            text = handle.read()
        if text.count(original) != 1:
            failures.append(f"{what}: the text to mutate is not in {relative} exactly once (update MUTATIONS)")
            continue
        scratch = os.path.join(scratch_root, str(index))
        os.makedirs(scratch, exist_ok=True)
        planted = os.path.join(scratch, os.path.basename(relative))
        with open(planted, "w", encoding="utf-8") as handle:
            handle.write(text.replace(original, mutated))
        module, paths = unit_of[target]
        files = [planted if path == target else path for path in swift_files(paths)]
        status, output = compile_module(module, files, scratch, [out_dir])
        located = f"{planted}:" in output and "error:" in output
        verdict = "caught" if status != 0 and located else "MISSED"
        print(f"-- self-test {what}: {verdict}")
        if verdict != "caught":
            failures.append(f"{what}: the type-check of {module} did not fail in {relative}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--self-test", action="store_true", help="also prove planted mistakes fail the check")
    parser.add_argument("--keep", action="store_true", help="keep the build directory")
    arguments = parser.parse_args()
    coverage_check()
    out_dir = tempfile.mkdtemp(prefix="multiauth-apple-typecheck-")
    try:
        failures = typecheck(out_dir)
        if failures:
            print("typecheck_apple: the Apple-only code does not type-check (errors above)")
            return 1
        print(f"typecheck_apple: {len(UNITS)} modules type-check against the {', '.join(APPLE_MODULES)} shims")
        if arguments.self_test:
            problems = self_test(out_dir)
            if problems:
                print("typecheck_apple: self-test failed:\n  " + "\n  ".join(problems))
                return 1
            print(f"typecheck_apple: self-test: all {len(MUTATIONS)} planted mistakes fail the check")
        return 0
    finally:
        if arguments.keep:
            print(f"build directory: {out_dir}")
        else:
            shutil.rmtree(out_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
