// Shim module `Network` for Scripts/typecheck_apple.py (never shipped, never linked): exactly
// the Network framework declarations MultiAuthHTTP's CellularTransport uses, each written from
// the Apple documentation page cited above it (labels, defaults, `@Sendable` closures).
// Bodies are placeholders.
@_exported import AppleShimBase
import Dispatch

/// https://developer.apple.com/documentation/network/nwerror
/// `enum NWError` (`Error`, `CustomDebugStringConvertible`, `Equatable`)
public enum NWError: Error, CustomDebugStringConvertible, Equatable {
    /// https://developer.apple.com/documentation/network/nwerror/posix(_:)
    case posix(POSIXErrorCode)
    /// https://developer.apple.com/documentation/network/nwerror/dns(_:) — `case dns(DNSServiceErrorType)` (an `Int32`)
    case dns(Int32)
    /// https://developer.apple.com/documentation/network/nwerror/tls(_:)
    case tls(OSStatus)
    /// https://developer.apple.com/documentation/network/nwerror/debugdescription
    public var debugDescription: String { fatalError() }
}

/// https://developer.apple.com/documentation/network/nwinterface — `struct NWInterface` (`Hashable`)
public struct NWInterface: Hashable {
    /// https://developer.apple.com/documentation/network/nwinterface/interfacetype
    public enum InterfaceType: Hashable {
        /// https://developer.apple.com/documentation/network/nwinterface/interfacetype/other
        case other
        /// https://developer.apple.com/documentation/network/nwinterface/interfacetype/wifi
        case wifi
        /// https://developer.apple.com/documentation/network/nwinterface/interfacetype/cellular
        case cellular
        /// https://developer.apple.com/documentation/network/nwinterface/interfacetype/wiredethernet
        case wiredEthernet
        /// https://developer.apple.com/documentation/network/nwinterface/interfacetype/loopback
        case loopback
    }
}

/// https://developer.apple.com/documentation/network/nwendpoint — `enum NWEndpoint`
public enum NWEndpoint {
    /// https://developer.apple.com/documentation/network/nwendpoint/host-swift.enum
    public enum Host: Hashable {
        /// https://developer.apple.com/documentation/network/nwendpoint/host-swift.enum/name(_:_:)
        case name(String, NWInterface?)
        /// https://developer.apple.com/documentation/network/nwendpoint/host-swift.enum/init(_:) — `init(_ string: String)`
        public init(_ string: String) { fatalError() }
    }

    /// https://developer.apple.com/documentation/network/nwendpoint/port-swift.struct
    public struct Port: Hashable, RawRepresentable {
        /// https://developer.apple.com/documentation/network/nwendpoint/port-swift.struct/init(rawvalue:)
        /// `init?(rawValue: UInt16)`
        public init?(rawValue: UInt16) { fatalError() }
        /// https://developer.apple.com/documentation/network/nwendpoint/port-swift.struct/rawvalue — `var rawValue: UInt16`
        public var rawValue: UInt16 { fatalError() }
    }

    /// https://developer.apple.com/documentation/network/nwendpoint/hostport(host:port:)
    case hostPort(host: NWEndpoint.Host, port: NWEndpoint.Port)
}

/// https://developer.apple.com/documentation/network/nwprotocoltcp — `class NWProtocolTCP`
public final class NWProtocolTCP {
    /// https://developer.apple.com/documentation/network/nwprotocoltcp/options
    public final class Options {
        /// https://developer.apple.com/documentation/network/nwprotocoltcp/options/init() — `init()`
        public init() {}
        /// https://developer.apple.com/documentation/network/nwprotocoltcp/options/connectiontimeout — `var connectionTimeout: Int`
        public var connectionTimeout: Int = 0
    }
}

/// https://developer.apple.com/documentation/network/nwprotocoltls — `class NWProtocolTLS`
public final class NWProtocolTLS {
    /// https://developer.apple.com/documentation/network/nwprotocoltls/options
    public final class Options {
        /// https://developer.apple.com/documentation/network/nwprotocoltls/options/init() — `init()`
        public init() {}
    }
}

/// https://developer.apple.com/documentation/network/nwparameters — `final class NWParameters`
public final class NWParameters {
    /// https://developer.apple.com/documentation/network/nwparameters/init(tls:tcp:)
    /// `convenience init(tls: NWProtocolTLS.Options?, tcp: NWProtocolTCP.Options = NWProtocolTCP.Options())`
    public convenience init(tls: NWProtocolTLS.Options?, tcp: NWProtocolTCP.Options = NWProtocolTCP.Options()) { fatalError() }
    /// https://developer.apple.com/documentation/network/nwparameters/requiredinterfacetype
    /// `var requiredInterfaceType: NWInterface.InterfaceType`
    public var requiredInterfaceType: NWInterface.InterfaceType = .other
    /// https://developer.apple.com/documentation/network/nwparameters/prohibitedinterfacetypes
    /// `var prohibitedInterfaceTypes: [NWInterface.InterfaceType]?`
    public var prohibitedInterfaceTypes: [NWInterface.InterfaceType]?
    /// https://developer.apple.com/documentation/network/nwparameters/prefernoproxies — `var preferNoProxies: Bool`
    public var preferNoProxies: Bool = false
}

/// https://developer.apple.com/documentation/network/nwconnection — `final class NWConnection`
public final class NWConnection {
    /// https://developer.apple.com/documentation/network/nwconnection/init(host:port:using:)
    /// `convenience init(host: NWEndpoint.Host, port: NWEndpoint.Port, using: NWParameters)`
    public convenience init(host: NWEndpoint.Host, port: NWEndpoint.Port, using: NWParameters) { fatalError() }

    /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum
    public enum State: Equatable {
        /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/setup
        case setup
        /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/waiting(_:)
        case waiting(NWError)
        /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/preparing
        case preparing
        /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/ready
        case ready
        /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/failed(_:)
        case failed(NWError)
        /// https://developer.apple.com/documentation/network/nwconnection/state-swift.enum/cancelled
        case cancelled
    }

    /// https://developer.apple.com/documentation/network/nwconnection/stateupdatehandler
    /// `@preconcurrency final var stateUpdateHandler: (@Sendable (NWConnection.State) -> Void)? { get set }`
    @preconcurrency public final var stateUpdateHandler: (@Sendable (NWConnection.State) -> Void)?

    /// https://developer.apple.com/documentation/network/nwconnection/start(queue:) — `final func start(queue: DispatchQueue)`
    public final func start(queue: DispatchQueue) { fatalError() }
    /// https://developer.apple.com/documentation/network/nwconnection/cancel() — `final func cancel()`
    public final func cancel() { fatalError() }

    /// https://developer.apple.com/documentation/network/nwconnection/contentcontext — `class ContentContext`
    public final class ContentContext {
        /// https://developer.apple.com/documentation/network/nwconnection/contentcontext/defaultmessage
        /// `static let defaultMessage: NWConnection.ContentContext`
        public static let defaultMessage = ContentContext()
        private init() {}
    }

    /// https://developer.apple.com/documentation/network/nwconnection/sendcompletion — `enum SendCompletion`
    public enum SendCompletion {
        /// https://developer.apple.com/documentation/network/nwconnection/sendcompletion/contentprocessed(_:)
        /// `@preconcurrency case contentProcessed(@Sendable (NWError?) -> Void)`
        case contentProcessed(@Sendable (NWError?) -> Void)
        /// https://developer.apple.com/documentation/network/nwconnection/sendcompletion/idempotent
        case idempotent
    }

    /// https://developer.apple.com/documentation/network/nwconnection/send(content:contentcontext:iscomplete:completion:)-5ecuz
    /// `@preconcurrency final func send(content: Data?, contentContext: NWConnection.ContentContext = .defaultMessage, isComplete: Bool = true, completion: NWConnection.SendCompletion)`
    @preconcurrency
    public final func send(
        content: Data?, contentContext: NWConnection.ContentContext = .defaultMessage, isComplete: Bool = true,
        completion: NWConnection.SendCompletion
    ) { fatalError() }

    /// https://developer.apple.com/documentation/network/nwconnection/receive(minimumincompletelength:maximumlength:completion:)
    /// `@preconcurrency final func receive(minimumIncompleteLength: Int, maximumLength: Int, completion: @escaping @Sendable (Data?, NWConnection.ContentContext?, Bool, NWError?) -> Void)`
    @preconcurrency
    public final func receive(
        minimumIncompleteLength: Int, maximumLength: Int,
        completion: @escaping @Sendable (Data?, NWConnection.ContentContext?, Bool, NWError?) -> Void
    ) { fatalError() }
}

/// https://developer.apple.com/documentation/network/nwpath — `struct NWPath`
public struct NWPath {
    /// https://developer.apple.com/documentation/network/nwpath/status-swift.enum
    public enum Status: Hashable {
        /// https://developer.apple.com/documentation/network/nwpath/status-swift.enum/satisfied
        case satisfied
        /// https://developer.apple.com/documentation/network/nwpath/status-swift.enum/unsatisfied
        case unsatisfied
        /// https://developer.apple.com/documentation/network/nwpath/status-swift.enum/requiresconnection
        case requiresConnection
    }
    /// https://developer.apple.com/documentation/network/nwpath/status-swift.property — `let status: NWPath.Status`
    public let status: NWPath.Status
}

/// https://developer.apple.com/documentation/network/nwpathmonitor — `final class NWPathMonitor`
public final class NWPathMonitor {
    /// https://developer.apple.com/documentation/network/nwpathmonitor/init(requiredinterfacetype:)
    /// `init(requiredInterfaceType: NWInterface.InterfaceType)`
    public init(requiredInterfaceType: NWInterface.InterfaceType) { fatalError() }
    /// https://developer.apple.com/documentation/network/nwpathmonitor/currentpath — `final var currentPath: NWPath { get }`
    public final var currentPath: NWPath { fatalError() }
    /// https://developer.apple.com/documentation/network/nwpathmonitor/start(queue:) — `final func start(queue: DispatchQueue)`
    public final func start(queue: DispatchQueue) { fatalError() }
    /// https://developer.apple.com/documentation/network/nwpathmonitor/cancel() — `final func cancel()`
    public final func cancel() { fatalError() }
}
