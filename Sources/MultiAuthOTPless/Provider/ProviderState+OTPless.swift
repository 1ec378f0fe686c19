import Foundation
import MultiAuth

extension ProviderState {
    /// The adapter's values, kept together as one JSON object under the key `otpless` so that no
    /// single stored value (a channel name, an id) reads like a plain field of the challenge.
    subscript(otpless key: String) -> String? {
        get { (try? decode([String: String].self, forKey: "otpless"))??[key] }
        set {
            var all = ((try? decode([String: String].self, forKey: "otpless")) ?? nil) ?? [:]
            all[key] = newValue
            try? encode(all, forKey: "otpless")
        }
    }
}
