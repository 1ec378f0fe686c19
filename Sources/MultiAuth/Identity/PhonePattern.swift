import Foundation
import MultiAuthLocking

/// A compiled libphonenumber metadata regex, matched against strings of ASCII digits.
///
/// The metadata uses a small subset of ICU regex syntax, which this type implements without
/// Foundation: digits, `\d`, classes of digits (`[2-9]`, `[02-46-9]`), non-capturing groups
/// `(?:…)`, capturing groups `(…)`, alternation `|`, `?`, bounded repetition `{n}` / `{n,m}`,
/// and the end anchor `$`. Patterns are compiled to a small program for a backtracking matcher
/// with the same priorities as ICU's (alternatives in order, greedy repetition), so prefix
/// matches and capture groups agree with `NSRegularExpression` (a test compares the two on
/// every pattern of the table). A pattern outside the subset does not compile (`nil`).
///
/// Matching never allocates for a full match, and at most once for a prefix match with
/// captures; the state (instruction, position) pairs that failed are remembered after a
/// bounded number of steps, so a match is linear in pattern size × input length.
///
/// Immutable and `Sendable`; ``cached(_:)`` keeps one compiled program per pattern string, and
/// `PhoneMetadata.Territory.compiled(_:)` compiles a metadata field on its first use.
final class PhonePattern: Sendable {
    private enum Instruction {
        /// Consume one digit whose bit is set in the mask (bit d for digit d).
        case digit(UInt16)
        /// Try `first`, then `second` on failure (in that priority).
        case split(first: Int, second: Int)
        case jump(Int)
        /// Record the position in capture slot `slot` (2g: start of group g, 2g+1: end).
        case save(slot: Int)
        /// Succeeds only at the end of the input.
        case assertEnd
        case match
    }

    /// The pattern as written in the metadata.
    let source: String
    /// The number of capturing groups.
    let captureGroupCount: Int
    private let program: [Instruction]

    /// A prefix match: its length and each capturing group's range (`nil` if it did not take
    /// part), group 1 first.
    struct Match: Equatable {
        var length: Int
        var groups: [Range<Int>?]
    }

    /// Compiles `source` (anchored at the start of the input, as every use needs); `nil` when
    /// it uses syntax outside the subset or is malformed.
    init?(_ source: String) {
        var parser = Parser(Array(source.utf8))
        guard let node = parser.parseAlternation(), parser.isAtEnd else { return nil }
        var program: [Instruction] = []
        Self.emit(node, into: &program)
        program.append(.match)
        self.source = source
        self.captureGroupCount = parser.groupCount
        self.program = program
    }

    // MARK: Matching

    /// Whether all of `digits` matches (Python's `re.fullmatch`).
    func fullMatch(_ digits: UnsafeBufferPointer<UInt8>) -> Bool {
        run(digits, whole: true, captures: nil) != nil
    }

    /// The match at the start of `digits` (Python's `re.match`), if any.
    func prefixMatch(_ digits: UnsafeBufferPointer<UInt8>) -> Match? {
        var slots = [Int](repeating: -1, count: 2 * captureGroupCount)
        guard let end = run(digits, whole: false, captures: &slots) else { return nil }
        let groups: [Range<Int>?] = (0..<captureGroupCount).map { group in
            let start = slots[2 * group]
            let stop = slots[2 * group + 1]
            return start >= 0 && stop >= start ? start..<stop : nil
        }
        return Match(length: end, groups: groups)
    }

    /// Convenience for `String` input (ASCII digits).
    func fullMatch(_ digits: String) -> Bool {
        var digits = digits
        return digits.withUTF8 { fullMatch($0) }
    }

    /// Convenience for `String` input (ASCII digits).
    func prefixMatch(_ digits: String) -> Match? {
        var digits = digits
        return digits.withUTF8 { prefixMatch($0) }
    }

    /// Steps before the matcher starts remembering failed states.
    private static let memoizeAfter = 4_096

    /// Backtracking over the program; returns the end position of the first match by priority.
    /// With `whole`, a match must end at the end of the input.
    private func run(_ input: UnsafeBufferPointer<UInt8>, whole: Bool, captures: UnsafeMutablePointer<[Int]>?) -> Int? {
        // Backtrack entries: (pc, position) to resume, or a capture slot to restore (pc < 0:
        // slot -pc-1 gets `position` back).
        var stack: [(pc: Int, position: Int)] = []
        var failed: [Bool]? = nil
        var steps = 0
        var pc = 0
        var position = 0
        let count = input.count
        while true {
            var fail = false
            if failed?[pc * (count + 1) + position] == true {
                fail = true
            } else {
                steps += 1
                if failed == nil, steps > Self.memoizeAfter {
                    failed = [Bool](repeating: false, count: program.count * (count + 1))
                }
                failed?[pc * (count + 1) + position] = true
                switch program[pc] {
                case .digit(let mask):
                    if position < count, case let byte = input[position], byte.isASCIIDigit,
                        mask & (1 << UInt16(byte &- UInt8(ascii: "0"))) != 0
                    {
                        position += 1
                        pc += 1
                    } else {
                        fail = true
                    }
                case .split(let first, let second):
                    stack.append((second, position))
                    pc = first
                case .jump(let target):
                    pc = target
                case .save(let slot):
                    if let captures {
                        stack.append((-slot - 1, captures.pointee[slot]))
                        captures.pointee[slot] = position
                    }
                    pc += 1
                case .assertEnd:
                    if position == count { pc += 1 } else { fail = true }
                case .match:
                    if !whole || position == count { return position }
                    fail = true
                }
            }
            if fail {
                // Pop to the next alternative, restoring captures on the way.
                while true {
                    guard let entry = stack.popLast() else { return nil }
                    if entry.pc < 0 {
                        captures?.pointee[-entry.pc - 1] = entry.position
                        continue
                    }
                    pc = entry.pc
                    position = entry.position
                    break
                }
            }
        }
    }

    /// A random string the pattern matches in full (when `end` is not in the way): a random
    /// walk through the program, for the tests that compare matchers.
    func sample(using random: inout some RandomNumberGenerator) -> [UInt8] {
        var output: [UInt8] = []
        var pc = 0
        while pc < program.count {
            switch program[pc] {
            case .digit(let mask):
                let digits = (0..<10).filter { mask & (1 << UInt16($0)) != 0 }
                output.append(UInt8(ascii: "0") + UInt8(digits.randomElement(using: &random)!))
                pc += 1
            case .split(let first, let second):
                pc = Bool.random(using: &random) ? first : second
            case .jump(let target):
                pc = target
            case .save, .assertEnd:
                pc += 1
            case .match:
                return output
            }
        }
        return output
    }

    // MARK: Cache

    /// Compiled programs by pattern string (`nil` for one that does not compile).
    private static let cache = Locked([String: PhonePattern?]())

    /// The compiled form of `source`, compiled once per process; `nil` if it does not compile.
    static func cached(_ source: String) -> PhonePattern? {
        cache.withLock { compiled in
            if let entry = compiled[source] { return entry }
            let pattern = PhonePattern(source)
            compiled[source] = pattern
            return pattern
        }
    }

    /// Whether `pattern` compiles (used by tests to validate the generated table).
    static func compiles(_ pattern: String) -> Bool { cached(pattern) != nil }

    /// Whether the whole of `digits` matches `pattern`; `false` if it does not compile.
    static func fullMatch(_ pattern: String, _ digits: String) -> Bool { cached(pattern)?.fullMatch(digits) ?? false }

    /// The match of `pattern` at the start of `digits`, if any.
    static func prefixMatch(_ pattern: String, _ digits: String) -> Match? { cached(pattern)?.prefixMatch(digits) }

    // MARK: Templates

    /// Expands an `NSRegularExpression`-style template (`$n` is capture group n, empty when it
    /// did not take part; `\` escapes the next character) for `match` over `digits`.
    func expand(_ template: String, match: Match, digits: [UInt8]) -> String {
        var output: [UInt8] = []
        let bytes = Array(template.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\\"), index < bytes.count {
                output.append(bytes[index])
                index += 1
            } else if byte == UInt8(ascii: "$"), index < bytes.count, bytes[index].isASCIIDigit {
                // As many digits as still name an existing group (ICU's rule).
                var group = Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
                while index < bytes.count, bytes[index].isASCIIDigit,
                    group * 10 + Int(bytes[index] - UInt8(ascii: "0")) <= captureGroupCount
                {
                    group = group * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                if group == 0 {
                    output.append(contentsOf: digits[0..<match.length])
                } else if group <= captureGroupCount, let range = match.groups[group - 1] {
                    output.append(contentsOf: digits[range])
                }
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Compiling

    private indirect enum Node {
        case digits(UInt16)
        case sequence([Node])
        case alternation([Node])
        case group(Node, capture: Int?)
        case repetition(Node, minimum: Int, maximum: Int)
        case end
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var groupCount = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index == bytes.count }
        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func parseAlternation() -> Node? {
            var branches: [Node] = []
            while true {
                guard let branch = parseSequence() else { return nil }
                branches.append(branch)
                guard peek() == UInt8(ascii: "|") else { break }
                index += 1
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func parseSequence() -> Node? {
            var items: [Node] = []
            while let byte = peek(), byte != UInt8(ascii: "|"), byte != UInt8(ascii: ")") {
                guard var atom = parseAtom() else { return nil }
                while let quantifier = peek() {
                    if quantifier == UInt8(ascii: "?") {
                        index += 1
                        atom = .repetition(atom, minimum: 0, maximum: 1)
                    } else if quantifier == UInt8(ascii: "{") {
                        guard let (minimum, maximum) = parseBounds() else { return nil }
                        atom = .repetition(atom, minimum: minimum, maximum: maximum)
                    } else {
                        break
                    }
                }
                items.append(atom)
            }
            return items.count == 1 ? items[0] : .sequence(items)
        }

        mutating func parseAtom() -> Node? {
            guard let byte = peek() else { return nil }
            index += 1
            switch byte {
            case _ where byte.isASCIIDigit:
                return .digits(1 << UInt16(byte - UInt8(ascii: "0")))
            case UInt8(ascii: "\\"):
                guard peek() == UInt8(ascii: "d") else { return nil }
                index += 1
                return .digits(0x3FF)
            case UInt8(ascii: "["):
                return parseClass()
            case UInt8(ascii: "$"):
                return .end
            case UInt8(ascii: "("):
                var capture: Int? = nil
                if peek() == UInt8(ascii: "?") {
                    guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ":") else { return nil }
                    index += 2
                } else {
                    groupCount += 1
                    capture = groupCount
                }
                guard let inner = parseAlternation(), peek() == UInt8(ascii: ")") else { return nil }
                index += 1
                return .group(inner, capture: capture)
            default:
                return nil
            }
        }

        /// `[...]` of digits, ranges and `\d`; negation is not in the subset.
        mutating func parseClass() -> Node? {
            var mask: UInt16 = 0
            var previous: UInt8?
            while let byte = peek() {
                index += 1
                switch byte {
                case UInt8(ascii: "]"):
                    return mask == 0 ? nil : .digits(mask)
                case _ where byte.isASCIIDigit:
                    mask |= 1 << UInt16(byte - UInt8(ascii: "0"))
                    previous = byte
                case UInt8(ascii: "-"):
                    guard let low = previous, let high = peek(), high.isASCIIDigit, low <= high else {
                        return nil
                    }
                    index += 1
                    for digit in low...high { mask |= 1 << UInt16(digit - UInt8(ascii: "0")) }
                    previous = nil
                case UInt8(ascii: "\\"):
                    guard peek() == UInt8(ascii: "d") else { return nil }
                    index += 1
                    mask = 0x3FF
                    previous = nil
                default:
                    return nil
                }
            }
            return nil
        }

        /// `{n}` or `{n,m}` with n ≤ m.
        mutating func parseBounds() -> (Int, Int)? {
            index += 1  // "{"
            func number() -> Int? {
                let start = index
                var value = 0
                while let byte = peek(), byte.isASCIIDigit, value < 1_000 {
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                    index += 1
                }
                return index > start ? value : nil
            }
            guard let minimum = number() else { return nil }
            var maximum = minimum
            if peek() == UInt8(ascii: ",") {
                index += 1
                guard let upper = number() else { return nil }
                maximum = upper
            }
            guard peek() == UInt8(ascii: "}"), minimum <= maximum else { return nil }
            index += 1
            return (minimum, maximum)
        }
    }

    /// Appends the program for `node`: greedy repetition and ordered alternation, as in ICU.
    private static func emit(_ node: Node, into program: inout [Instruction]) {
        switch node {
        case .digits(let mask):
            program.append(.digit(mask))
        case .sequence(let items):
            for item in items { emit(item, into: &program) }
        case .alternation(let branches):
            // split L1, next; L1: branch1; jump end; next: split L2, next2; … last branch.
            var jumps: [Int] = []
            for (offset, branch) in branches.enumerated() {
                if offset < branches.count - 1 {
                    let split = program.count
                    program.append(.split(first: split + 1, second: -1))
                    emit(branch, into: &program)
                    jumps.append(program.count)
                    program.append(.jump(-1))
                    program[split] = .split(first: split + 1, second: program.count)
                } else {
                    emit(branch, into: &program)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .group(let inner, let capture):
            if let capture { program.append(.save(slot: 2 * (capture - 1))) }
            emit(inner, into: &program)
            if let capture { program.append(.save(slot: 2 * (capture - 1) + 1)) }
        case .repetition(let inner, let minimum, let maximum):
            for _ in 0..<minimum { emit(inner, into: &program) }
            // Each optional copy: split(take, skip) — greedy, nested so later copies need earlier ones.
            var splits: [Int] = []
            for _ in minimum..<maximum {
                splits.append(program.count)
                program.append(.split(first: program.count + 1, second: -1))
                emit(inner, into: &program)
            }
            for split in splits { program[split] = .split(first: split + 1, second: program.count) }
        case .end:
            program.append(.assertEnd)
        }
    }
}
