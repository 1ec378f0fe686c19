import Foundation
import MultiAuthLocking

/// Numbering-plan metadata for every territory libphonenumber knows, parsed lazily from the
/// generated ``rawTable`` (see `Scripts/generate_phone_metadata.py`).
///
/// Internal: the public surface is ``PhoneNumber``.
enum PhoneMetadata {
    /// The metadata of one territory: a geographic region, or a non-geographic calling code
    /// (region `"001"`, e.g. +800).
    ///
    /// A class, so lookups share one instance; its patterns are compiled on first use
    /// (``compiled(_:)``), under the territory's own `Locked` box, held only to read or store.
    final class Territory: Sendable {
        /// ISO 3166-1 alpha-2 region code, or `"001"` for a non-geographic calling code.
        let region: String
        /// The ITU-T E.164 country calling code.
        let callingCode: Int
        /// Possible lengths of a national significant number, ascending.
        let possibleLengths: [Int]
        /// Lengths only dialable within an area (without its area code), ascending.
        let localOnlyLengths: [Int]
        /// The national (trunk) prefix, e.g. `"0"`; `nil` where the region has none (Italy).
        let nationalPrefix: String?
        /// Regex matching the national prefix (and carrier codes) when parsing national input.
        let nationalPrefixForParsing: String?
        /// Template (`$1`) rewriting the match of ``nationalPrefixForParsing``, when any.
        let nationalPrefixTransformRule: String?
        /// Regex of the international (exit) prefix dialled from this region, e.g. `"011"`.
        let internationalPrefix: String?
        /// Regex identifying this region among the regions sharing its calling code.
        let leadingDigits: String?
        /// The general-description national-number regex.
        let generalPattern: String
        /// The union of all number-type regexes (only for shared calling codes).
        let typesPattern: String?

        /// The regex fields, for ``compiled(_:)``.
        enum Pattern: Int {
            case general, types, leadingDigits, nationalPrefixForParsing, internationalPrefix
        }

        /// Per ``Pattern``: `nil` until compiled; `.some(nil)` when absent or not compilable.
        private let patterns = Locked([PhonePattern??]())

        init(
            region: String, callingCode: Int, possibleLengths: [Int], localOnlyLengths: [Int], nationalPrefix: String?,
            nationalPrefixForParsing: String?, nationalPrefixTransformRule: String?, internationalPrefix: String?,
            leadingDigits: String?, generalPattern: String, typesPattern: String?
        ) {
            self.region = region
            self.callingCode = callingCode
            self.possibleLengths = possibleLengths
            self.localOnlyLengths = localOnlyLengths
            self.nationalPrefix = nationalPrefix
            self.nationalPrefixForParsing = nationalPrefixForParsing
            self.nationalPrefixTransformRule = nationalPrefixTransformRule
            self.internationalPrefix = internationalPrefix
            self.leadingDigits = leadingDigits
            self.generalPattern = generalPattern
            self.typesPattern = typesPattern
        }

        /// The source of a regex field, `nil` when the territory has none.
        func source(_ pattern: Pattern) -> String? {
            switch pattern {
            case .general: generalPattern
            case .types: typesPattern
            case .leadingDigits: leadingDigits
            case .nationalPrefixForParsing: nationalPrefixForParsing
            case .internationalPrefix: internationalPrefix
            }
        }

        /// The compiled regex field, compiled once on first use; `nil` when absent or when it
        /// does not compile (a metadata bug: treated as "no match").
        func compiled(_ pattern: Pattern) -> PhonePattern? {
            let known: PhonePattern?? = patterns.withLock { patterns in
                pattern.rawValue < patterns.count ? patterns[pattern.rawValue] : nil
            }
            if let known { return known }
            let compiled = source(pattern).flatMap(PhonePattern.init)
            return patterns.withLock { patterns in
                if patterns.isEmpty { patterns = Array(repeating: nil, count: 5) }
                if let earlier = patterns[pattern.rawValue] { return earlier }
                patterns[pattern.rawValue] = .some(compiled)
                return compiled
            }
        }

        /// Whether all of `digits` matches the field (`false` when absent).
        func fullMatch(_ pattern: Pattern, _ digits: String) -> Bool { compiled(pattern)?.fullMatch(digits) ?? false }

        /// The match of the field at the start of `digits`, if any.
        func prefixMatch(_ pattern: Pattern, _ digits: String) -> PhonePattern.Match? {
            compiled(pattern)?.prefixMatch(digits)
        }

        /// Whether this is a non-geographic entity (region `"001"`).
        var isNonGeographic: Bool { region == "001" }
    }

    /// Territories indexed by region and by calling code.
    struct Table: Sendable {
        /// Geographic territories by upper-case region code.
        let byRegion: [String: Territory]
        /// Territories by calling code, main region first (libphonenumber's order).
        let byCallingCode: [Int: [Territory]]
    }

    /// The parsed table, built on first use (thread-safe lazy initialisation of a static).
    static let table: Table = parse(rawTable)

    /// The territory of a region code (case-insensitive), or `nil` when unknown.
    static func territory(forRegion region: String) -> Territory? {
        if let territory = table.byRegion[region] { return territory }
        return table.byRegion[region.uppercased()]
    }

    /// The territories of a calling code, main region first; empty when unassigned.
    static func territories(forCallingCode code: Int) -> [Territory] {
        table.byCallingCode[code] ?? []
    }

    /// Parses the generated table. A malformed line is a generator bug and traps.
    ///
    /// One pass over the table's UTF-8 bytes (the first phone parse of a process pays for it,
    /// so it stays well under a millisecond); patterns are compiled later, on first use.
    static func parse(_ raw: String) -> Table {
        var raw = raw
        return raw.withUTF8 { bytes in
            var byRegion: [String: Territory] = Dictionary(minimumCapacity: 256)
            var byCallingCode: [Int: [Territory]] = Dictionary(minimumCapacity: 256)
            var lineStart = 0
            while lineStart < bytes.count {
                let rest = UnsafeRawPointer(bytes.baseAddress! + lineStart)
                let lineEnd =
                    memchr(rest, Int32(UInt8(ascii: "\n")), bytes.count - lineStart).map {
                        $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
                    }
                    ?? bytes.count
                if lineEnd > lineStart {
                    let territory = parseLine(UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]))
                    if !territory.isNonGeographic { byRegion[territory.region] = territory }
                    byCallingCode[territory.callingCode, default: []].append(territory)
                }
                lineStart = lineEnd + 1
            }
            return Table(byRegion: byRegion, byCallingCode: byCallingCode)
        }
    }

    /// One territory from its line of 11 space-separated fields (`~` for an absent one).
    private static func parseLine(_ line: UnsafeBufferPointer<UInt8>) -> Territory {
        var fields: [Range<Int>] = []
        fields.reserveCapacity(11)
        var start = 0
        for index in 0...line.count where index == line.count || line[index] == UInt8(ascii: " ") {
            fields.append(start..<index)
            start = index + 1
        }
        precondition(
            fields.count == 11, "malformed phone metadata line: \(String(decoding: line.prefix(20), as: UTF8.self))")
        func text(_ index: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: line[fields[index]]), as: UTF8.self)
        }
        func optional(_ index: Int) -> String? {
            let range = fields[index]
            return range.count == 1 && line[range.lowerBound] == UInt8(ascii: "~") ? nil : text(index)
        }
        func number(_ range: Range<Int>) -> Int? {
            guard !range.isEmpty else { return nil }
            var value = 0
            for index in range {
                let byte = line[index]
                guard byte.isASCIIDigit else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func lengths(_ index: Int) -> [Int] {
            let range = fields[index]
            if range.count == 1 && line[range.lowerBound] == UInt8(ascii: "~") { return [] }
            var values: [Int] = []
            var start = range.lowerBound
            for position in range.lowerBound...range.upperBound
            where position == range.upperBound || line[position] == UInt8(ascii: ",") {
                if let value = number(start..<position) { values.append(value) }
                start = position + 1
            }
            return values
        }
        guard let callingCode = number(fields[1]) else {
            preconditionFailure("malformed calling code in phone metadata: \(text(0))")
        }
        let nationalPrefix = optional(4)
        return Territory(
            region: text(0),
            callingCode: callingCode,
            possibleLengths: lengths(2),
            localOnlyLengths: lengths(3),
            nationalPrefix: nationalPrefix,
            nationalPrefixForParsing: optional(5) ?? nationalPrefix,
            nationalPrefixTransformRule: optional(6),
            internationalPrefix: optional(7),
            leadingDigits: optional(8),
            generalPattern: text(9),
            typesPattern: optional(10)
        )
    }
}
