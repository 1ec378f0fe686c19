import Foundation

@testable import MultiAuthTruecaller

enum TruecallerConfigurationFactory {
    static func make(otpRegions: Set<String>? = ["IN"]) -> TruecallerConfiguration {
        TruecallerConfiguration(
            appKey: "test-app-key", appLink: URL(string: "https://app.example.com/truecaller")!,
            baseURL: URL(string: "https://truecaller.stub.test")!, deviceID: "device-1", otpRegions: otpRegions)
    }
}
