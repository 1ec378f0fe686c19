// Shim module `SwiftUI` for Scripts/typecheck_apple.py (never shipped, never linked): exactly
// the SwiftUI declarations the compiled samples use (Docs/Samples/SignInView.swift), each
// written from the Apple documentation page cited above it: the `View` protocol, the
// `ViewBuilder` result builder, `@State` and `Binding`, and the views and modifier the sample
// calls. Bodies are placeholders.
@_exported import Foundation
@_exported import Observation

/// https://developer.apple.com/documentation/swiftui/view
/// `@MainActor @preconcurrency protocol View { associatedtype Body : View; @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get } }`
@MainActor @preconcurrency
public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

/// https://developer.apple.com/documentation/swift/never — `Never` conforms to `View` (the body
/// type of primitive views).
extension Never: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// https://developer.apple.com/documentation/swiftui/viewbuilder — `@resultBuilder struct ViewBuilder`
@resultBuilder
public struct ViewBuilder {
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock() — `static func buildBlock() -> EmptyView`
    public static func buildBlock() -> EmptyView { fatalError() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-5t8i2
    /// `static func buildBlock<Content>(_ content: Content) -> Content where Content : View`
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildblock(_:)-96s9l
    /// `static func buildBlock<each Content>(_ content: repeat each Content) -> TupleView<(repeat each Content)> where repeat each Content : View`
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> { fatalError() }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildif(_:)
    /// `static func buildIf<Content>(_ content: Content?) -> Content? where Content : View`
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(first:)
    /// `static func buildEither<TrueContent, FalseContent>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent : View, FalseContent : View`
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> {
        fatalError()
    }
    /// https://developer.apple.com/documentation/swiftui/viewbuilder/buildeither(second:)
    /// `static func buildEither<TrueContent, FalseContent>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent : View, FalseContent : View`
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> {
        fatalError()
    }
}

/// https://developer.apple.com/documentation/swiftui/emptyview — `@frozen struct EmptyView`
public struct EmptyView: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// https://developer.apple.com/documentation/swiftui/tupleview — `@frozen struct TupleView<T>`
public struct TupleView<T>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// https://developer.apple.com/documentation/swiftui/_conditionalcontent — `@frozen struct _ConditionalContent<TrueContent, FalseContent>`
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// https://developer.apple.com/documentation/swiftui/view — `Optional: View where Wrapped: View`
/// (listed under the protocol's conforming types)
extension Optional: View where Wrapped: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// https://developer.apple.com/documentation/swiftui/localizedstringkey
/// `@frozen struct LocalizedStringKey` (`ExpressibleByStringLiteral`, `ExpressibleByStringInterpolation`)
public struct LocalizedStringKey: ExpressibleByStringLiteral, Equatable, Sendable {
    /// https://developer.apple.com/documentation/swiftui/localizedstringkey/init(stringliteral:)
    public init(stringLiteral value: String) {}
    /// https://developer.apple.com/documentation/swiftui/localizedstringkey/init(_:) — `init(_ value: String)`
    public init(_ value: String) {}
}

/// https://developer.apple.com/documentation/swiftui/text — `@frozen struct Text`
public struct Text: View, Equatable, Sendable {
    public typealias Body = Never
    public var body: Never { fatalError() }
    /// https://developer.apple.com/documentation/swiftui/text/init(_:tablename:bundle:comment:)
    /// `init(_ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil)`
    public init(_ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil) {}
    /// https://developer.apple.com/documentation/swiftui/text/init(_:)-9d1g4
    /// `@_disfavoredOverload init<S>(_ content: S) where S : StringProtocol`
    @_disfavoredOverload public init<S: StringProtocol>(_ content: S) {}
}

/// https://developer.apple.com/documentation/swiftui/binding — `@frozen @propertyWrapper @dynamicMemberLookup struct Binding<Value>`
@propertyWrapper
public struct Binding<Value> {
    /// https://developer.apple.com/documentation/swiftui/binding/init(get:set:)-6g3d5
    /// `init(get: @escaping () -> Value, set: @escaping (Value) -> Void)`
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {}
    /// https://developer.apple.com/documentation/swiftui/binding/wrappedvalue — `var wrappedValue: Value { get nonmutating set }`
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    /// https://developer.apple.com/documentation/swiftui/binding/projectedvalue — `var projectedValue: Binding<Value> { get }`
    public var projectedValue: Binding<Value> { self }
}

/// https://developer.apple.com/documentation/swiftui/state — `@frozen @propertyWrapper struct State<Value>`
@propertyWrapper
public struct State<Value> {
    /// https://developer.apple.com/documentation/swiftui/state/init(wrappedvalue:) — `init(wrappedValue value: Value)`
    public init(wrappedValue value: Value) {}
    /// https://developer.apple.com/documentation/swiftui/state/wrappedvalue — `var wrappedValue: Value { get nonmutating set }`
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    /// https://developer.apple.com/documentation/swiftui/state/projectedvalue — `var projectedValue: Binding<Value> { get }`
    public var projectedValue: Binding<Value> { fatalError() }
}

/// https://developer.apple.com/documentation/swiftui/horizontalalignment — `@frozen struct HorizontalAlignment`
public struct HorizontalAlignment: Equatable, Sendable {
    /// https://developer.apple.com/documentation/swiftui/horizontalalignment/center — `static let center: HorizontalAlignment`
    public static let center = HorizontalAlignment()
}

/// https://developer.apple.com/documentation/swiftui/vstack — `@frozen struct VStack<Content> where Content : View`
public struct VStack<Content: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
    /// https://developer.apple.com/documentation/swiftui/vstack/init(alignment:spacing:content:)
    /// `init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content)`
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
}

/// https://developer.apple.com/documentation/swiftui/button — `@MainActor @preconcurrency struct Button<Label> where Label : View`
@MainActor @preconcurrency
public struct Button<Label: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension Button where Label == Text {
    /// https://developer.apple.com/documentation/swiftui/button/init(_:action:)-1asy9
    /// `nonisolated init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void)`
    public nonisolated init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) {}
}

/// https://developer.apple.com/documentation/swiftui/textfield — `@MainActor @preconcurrency struct TextField<Label> where Label : View`
@MainActor @preconcurrency
public struct TextField<Label: View>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

extension TextField where Label == Text {
    /// https://developer.apple.com/documentation/swiftui/textfield/init(_:text:)-588cl
    /// `nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>)`
    public nonisolated init(_ titleKey: LocalizedStringKey, text: Binding<String>) {}
}

/// https://developer.apple.com/documentation/swiftui/modifiedcontent — `@frozen struct ModifiedContent<Content, Modifier>`
public struct ModifiedContent<Content, Modifier>: View {
    public typealias Body = Never
    public var body: Never { fatalError() }
}

/// The modifier `task(priority:_:)` applies (its concrete type is private in SwiftUI; the
/// method returns `some View`).
public struct _TaskModifier {}

extension View {
    /// https://developer.apple.com/documentation/swiftui/view/task(priority:_:)
    /// `nonisolated func task(priority: TaskPriority = .userInitiated, _ action: @escaping @isolated(any) @Sendable () async -> Void) -> some View`
    public nonisolated func task(
        priority: TaskPriority = .userInitiated, _ action: @escaping @isolated(any) @Sendable () async -> Void
    ) -> some View {
        ModifiedContent<Self, _TaskModifier>()
    }
}
