// Shim module `AuthenticationServices` for Scripts/typecheck_apple.py (never shipped, never
// linked): exactly the declarations `PasskeyAuthorization` uses
// (Sources/MultiAuth/Provider/PasskeyAuthorization+AuthenticationServices.swift), each written
// from the Apple documentation page cited above it. Bodies are placeholders. Objective-C
// classes are `NSObject` subclasses as in the SDK; the delegate protocols' methods are
// `optional` in Apple's Objective-C protocols and required here (Linux has no `@objc optional`),
// so a misspelt implementation fails the check as Apple's "nearly matches optional requirement"
// warning does under -warnings-as-errors.
@_exported import Foundation
import UIKit

/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
/// `typealias ASPresentationAnchor = UIWindow` on iOS, tvOS and visionOS (`NSWindow` on macOS,
/// the variant that page shows); the shim models iOS.
public typealias ASPresentationAnchor = UIWindow

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationrequest — `class ASAuthorizationRequest : NSObject`
open class ASAuthorizationRequest: NSObject {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialuserverificationpreference
/// `struct ASAuthorizationPublicKeyCredentialUserVerificationPreference` (`RawRepresentable`, `Hashable`)
public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: Hashable, RawRepresentable, Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialuserverificationpreference/init(rawvalue:)
    /// `init(rawValue: String)`
    public init(rawValue: String) { self.rawValue = rawValue }
    public let rawValue: String
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialdescriptor
/// `class ASAuthorizationPlatformPublicKeyCredentialDescriptor : NSObject`
open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialdescriptor/init(credentialid:)
    /// `init(credentialID: Data)`
    public init(credentialID: Data) {}
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistrationrequest
/// `class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest : ASAuthorizationRequest`
/// (conforms to `ASAuthorizationPublicKeyCredentialRegistrationRequest`, whose properties follow)
open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistrationrequest/displayname
    /// `var displayName: String? { get set }`
    open var displayName: String?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistrationrequest/userverificationpreference
    /// `var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }`
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "")
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertionrequest
/// `class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest : ASAuthorizationRequest`
/// (conforms to `ASAuthorizationPublicKeyCredentialAssertionRequest`)
open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertionrequest/allowedcredentials
    /// `var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] { get set }`
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertionrequest/userverificationpreference
    /// `var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference { get set }`
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "")
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider
/// `class ASAuthorizationPlatformPublicKeyCredentialProvider : NSObject`
open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/init(relyingpartyidentifier:)
    /// `init(relyingPartyIdentifier: String)`
    public init(relyingPartyIdentifier: String) {}

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/createcredentialregistrationrequest(challenge:name:userid:)
    /// `func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data) -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest`
    open func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest
    { fatalError() }

    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialprovider/createcredentialassertionrequest(challenge:)
    /// `func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest`
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        fatalError()
    }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcredential
/// `protocol ASAuthorizationCredential : NSCopying, NSSecureCoding, NSObjectProtocol`
public protocol ASAuthorizationCredential: NSObjectProtocol {}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialregistration
/// `class ASAuthorizationPlatformPublicKeyCredentialRegistration : NSObject` (an
/// `ASAuthorizationCredential`, through `ASAuthorizationPublicKeyCredentialRegistration` and
/// `ASPublicKeyCredential`, whose properties follow)
open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationCredential {
    /// https://developer.apple.com/documentation/authenticationservices/aspublickeycredential/credentialid — `var credentialID: Data { get }`
    open var credentialID: Data { fatalError() }
    /// https://developer.apple.com/documentation/authenticationservices/aspublickeycredential/rawclientdatajson — `var rawClientDataJSON: Data { get }`
    open var rawClientDataJSON: Data { fatalError() }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialregistration/rawattestationobject
    /// `var rawAttestationObject: Data? { get }`
    open var rawAttestationObject: Data? { fatalError() }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationplatformpublickeycredentialassertion
/// `class ASAuthorizationPlatformPublicKeyCredentialAssertion : NSObject` (an
/// `ASAuthorizationCredential`, through `ASAuthorizationPublicKeyCredentialAssertion` and
/// `ASPublicKeyCredential`, whose properties follow)
open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationCredential {
    /// https://developer.apple.com/documentation/authenticationservices/aspublickeycredential/credentialid — `var credentialID: Data { get }`
    open var credentialID: Data { fatalError() }
    /// https://developer.apple.com/documentation/authenticationservices/aspublickeycredential/rawclientdatajson — `var rawClientDataJSON: Data { get }`
    open var rawClientDataJSON: Data { fatalError() }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/rawauthenticatordata
    /// `var rawAuthenticatorData: Data! { get }`
    open var rawAuthenticatorData: Data! { fatalError() }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/signature — `var signature: Data! { get }`
    open var signature: Data! { fatalError() }
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationpublickeycredentialassertion/userid — `var userID: Data! { get }`
    open var userID: Data! { fatalError() }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorization — `class ASAuthorization : NSObject`
open class ASAuthorization: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorization/credential
    /// `var credential: any ASAuthorizationCredential { get }`
    open var credential: any ASAuthorizationCredential { fatalError() }
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate
/// `@MainActor protocol ASAuthorizationControllerDelegate : NSObjectProtocol`
@MainActor
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate/authorizationcontroller(controller:didcompletewithauthorization:)
    /// `optional func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)`
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerdelegate/authorizationcontroller(controller:didcompletewitherror:)
    /// `optional func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)`
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerpresentationcontextproviding
/// `@MainActor protocol ASAuthorizationControllerPresentationContextProviding : NSObjectProtocol`
@MainActor
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontrollerpresentationcontextproviding/presentationanchor(for:)
    /// `func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor`
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller — `class ASAuthorizationController : NSObject`
open class ASAuthorizationController: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/init(authorizationrequests:)
    /// `init(authorizationRequests: [ASAuthorizationRequest])`
    public init(authorizationRequests: [ASAuthorizationRequest]) {}
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/delegate
    /// `weak var delegate: (any ASAuthorizationControllerDelegate)? { get set }`
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/presentationcontextprovider
    /// `weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)? { get set }`
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/performrequests() — `func performRequests()`
    open func performRequests() {}
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationcontroller/cancel() — `func cancel()` (iOS 16+)
    open func cancel() {}
}

/// https://developer.apple.com/documentation/authenticationservices/asauthorizationerror-swift.struct
/// `struct ASAuthorizationError` (an `Error` bridged from `ASAuthorizationErrorDomain`)
public struct ASAuthorizationError: Error, Hashable {
    /// https://developer.apple.com/documentation/authenticationservices/asauthorizationerror-swift.struct/code
    /// `enum Code` (`Int` raw values, from AuthenticationServices' ASAuthorizationError.h)
    public enum Code: Int, Sendable {
        case unknown = 1000
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        case failed = 1004
        case notInteractive = 1005
        case matchedExcludedCredential = 1006
        case credentialImport = 1007
        case credentialExport = 1008
        case preferSignInWithApple = 1009
        case deviceNotConfiguredForPasskeyCreation = 1010
    }
    /// The error's code (`_BridgedStoredNSError.code`, listed on the struct's page).
    public var code: Code { fatalError() }
}
