import Foundation
import Testing

@testable import MultiAuth

@Suite struct EmailAddressTests {
    // MARK: B33 (Docs/Cases.md)

    @Test func b33TrimsAndLowerCasesTheIdentityKeyKeepingThePlusTag() throws {
        let email = try EmailAddress("  User.Name+OTP@Example.COM ")
        #expect(email.address == "User.Name+OTP@Example.COM")
        #expect(email.identityKey == "user.name+otp@example.com")
        #expect(email == (try EmailAddress("user.name+otp@example.com")))
        #expect(email != (try EmailAddress("user.name@example.com")))
    }

    @Test(
        "B33: valid addresses",
        arguments: [
            "me@y.z.co.jp", "student@atlanta.k12.ga.us", "user@example.photography", "o'brien@example.com",
        ])
    func b33Valid(input: String) throws {
        let email = try EmailAddress(input)
        #expect(email.address == input)
        #expect(email.identityKey == input)
    }

    @Test(
        "B33: invalid addresses",
        arguments: [
            "user@", "user@@example.com", "user example@example.com", "@example.com",
        ])
    func b33Invalid(input: String) {
        expectInvalid(input)
    }

    // MARK: More rules

    @Test(
        "other valid addresses",
        arguments: [
            "a@b.co", "first_last-1@sub-domain.example.org", "x!#$%&*/=?^`{|}~@example.com",
            "user@xn--80ak6aa92e.xn--p1ai", "user@123.example.com", "\tuser@example.com\r\n",
            String(repeating: "a", count: 64) + "@example.com",
            "user@" + String(repeating: "d", count: 63) + ".com",
        ])
    func otherValid(input: String) throws {
        _ = try EmailAddress(input)
    }

    @Test(
        "other invalid addresses",
        arguments: [
            "", "   ", "plainaddress", "user@example", "user@example.c", "user@example.c0m", "user@example.123",
            ".user@example.com", "user.@example.com", "us..er@example.com", "user@.example.com",
            "user@example..com", "user@example.com.", "user@-example.com", "user@example-.com",
            "user@exa_mple.com", "user@[192.168.0.1]", "\"quoted\"@example.com", "us(er)@example.com",
            "user,name@example.com", "usér@example.com", "user@exämple.com", "user@example.com\u{0}",
            String(repeating: "a", count: 65) + "@example.com",
            "user@" + String(repeating: "d", count: 64) + ".com",
            "user@" + Array(repeating: String(repeating: "d", count: 60), count: 5).joined(separator: ".") + ".com",
        ])
    func otherInvalid(input: String) {
        expectInvalid(input)
    }

    @Test func errorMessageDoesNotRepeatTheAddress() {
        do {
            _ = try EmailAddress("secret.person@@example.com")
            Issue.record("expected an error")
        } catch let error as AuthError {
            #expect(error.reason == .invalidEmail)
            #expect(!error.message.contains("secret"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    // MARK: Masking, Codable

    @Test func masked() throws {
        let email = try EmailAddress("  User.Name+OTP@Example.COM ")
        #expect(email.masked == "u•••@example.com")
        #expect(email.description == "u•••@example.com")
        #expect("\(email)" == "u•••@example.com")
        #expect(try EmailAddress("o'brien@example.com").masked == "o•••@example.com")
    }

    @Test func codableRoundTrip() throws {
        let emails = [try EmailAddress("  User.Name+OTP@Example.COM "), try EmailAddress("me@y.z.co.jp")]
        let data = try JSONEncoder().encode(emails)
        #expect(String(decoding: data, as: UTF8.self) == #"["User.Name+OTP@Example.COM","me@y.z.co.jp"]"#)
        let decoded = try JSONDecoder().decode([EmailAddress].self, from: data)
        #expect(decoded == emails)
        #expect(decoded.map(\.address) == emails.map(\.address))
        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode([EmailAddress].self, from: Data(#"["user@"]"#.utf8))
        }
    }

    private func expectInvalid(_ input: String) {
        #expect {
            _ = try EmailAddress(input)
        } throws: { error in
            guard let error = error as? AuthError else { return false }
            return error.code == .invalidInput && error.reason == .invalidEmail
        }
    }
}
