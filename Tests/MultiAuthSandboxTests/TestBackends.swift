import Foundation
import MultiAuth
import MultiAuthSandbox

/// Echoes the request: status 200, the body back, the method and the server time in headers.
/// `/status/<n>` answers status n; `/throw` throws a non-network error; `/drop` drops.
struct EchoBackend: SandboxBackend {
    struct EchoFailure: Error {}

    func handle(_ request: HTTPRequest, context: SandboxContext) async throws -> HTTPResponse {
        switch request.url.path {
        case "/throw": throw EchoFailure()
        case "/drop": throw AuthError(.network, "dropped by the backend")
        case let path where path.hasPrefix("/status/"):
            return try .json(Int(request.url.lastPathComponent) ?? 500, ["code": "forced"])
        default:
            return HTTPResponse(
                status: 200,
                headers: [
                    "X-Method": request.method.rawValue,
                    "X-Server-Time": String(context.time.now.timeIntervalSince1970),
                    "X-Host": context.host,
                ],
                body: request.body ?? Data())
        }
    }
}

extension Sandbox {
    /// A sandbox with an `EchoBackend` on `echo.sandbox.test`.
    static func echo(seed: UInt64 = 7) -> Sandbox {
        let sandbox = Sandbox(seed: seed)
        sandbox.register(EchoBackend(), host: "echo.sandbox.test")
        return sandbox
    }

    /// Sends `GET https://echo.sandbox.test<path>` through the in-process transport.
    func get(_ path: String, host: String = "echo.sandbox.test") async throws -> HTTPResponse {
        try await transport.send(HTTPRequest(method: .get, url: URL(string: "https://\(host)\(path)")!))
    }
}
