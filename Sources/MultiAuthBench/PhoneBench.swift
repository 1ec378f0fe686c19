import Foundation
import MultiAuth

/// Phone number parsing (`PhoneNumber(_:defaultRegion:)`: characters, calling code, trunk
/// prefix, possible lengths, region) against python `phonenumbers` doing the same on the same
/// inputs (`parse` + `region_code_for_number` + E.164 formatting), and the first parse in a
/// fresh process (the metadata table is built lazily on first use).
enum PhoneBench {
    /// The inputs, cycled: international and national forms from several numbering plans,
    /// shared calling codes (+1, +44, +7) included. Also read by Scripts/bench_phonenumbers.py.
    static let inputs: [(input: String, region: String?)] = [
        ("+1 650-253-0000", nil), ("(212) 555-1234", "US"), ("+44 20 7946 0958", nil), ("07700 900123", "GB"),
        ("+91 98765 43210", nil), ("030 901820", "DE"), ("+81 3-1234-5678", nil), ("+33 1 23 45 67 89", nil),
        ("+61 2 9374 4000", nil), ("+7 912 345-67-89", nil), ("+39 06 6982 1234", nil), ("+1 416-555-0123", nil),
    ]

    static let ours = Kernel("phone.ours", batch: 5_000, instructions: 1_200) {
        let inputs = Self.inputs
        return Kernel.timed { count in
            var sink = 0
            for index in 0..<count {
                let (input, region) = inputs[index % inputs.count]
                let number = try PhoneNumber(input, defaultRegion: region)
                sink &+= number.e164.utf8.count &+ (number.regionCode?.utf8.count ?? 0)
            }
            blackHole(sink)
        }
    }

    static let phonenumbers = Kernel(
        "phone.phonenumbers", batch: 2_000, instructions: 600,
        python: [Paths.script("bench_phonenumbers.py"), "--inputs", inputsJSON])

    /// The inputs for the Python peer, as JSON `[[text, region or null], …]`.
    static let inputsJSON: String = {
        let list: [[Any]] = inputs.map { [$0.input, $0.region.map { $0 as Any } ?? NSNull()] }
        return String(decoding: try! JSONSerialization.data(withJSONObject: list), as: UTF8.self)
    }()

    /// The first parse in this process: built lazily on first use (`PhoneMetadata.table`).
    /// Measured in a fresh child process (`--first-parse`), which prints the nanoseconds.
    static func firstParseNanoseconds() -> Double {
        let start = Clock.nanoseconds()
        let number = try? PhoneNumber(inputs[0].input, defaultRegion: inputs[0].region)
        let elapsed = Double(Clock.nanoseconds() - start)
        blackHole(number)
        return elapsed
    }

    /// For callgrind: the first parse of a fresh process, with no warm-up.
    static let first = Kernel("phone.first", batch: 1, instructions: 1, warmUp: false) {
        Kernel.timed { _ in blackHole(try PhoneNumber(inputs[0].input, defaultRegion: inputs[0].region)) }
    }

    static let comparisons = [
        Comparison(
            group: "phone", label: "PhoneNumber parse vs python phonenumbers (same 12 inputs)", ours: ours,
            baseline: phonenumbers, goal: .fasterBy(10), judgedOnTime: true)
    ]
}
