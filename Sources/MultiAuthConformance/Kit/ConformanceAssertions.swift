import MultiAuth

/// Runs `operation`; turns any error into a failure naming `label`.
func expectSuccess<T>(_ label: String, _ operation: () async throws -> T) async throws -> T {
    do { return try await operation() } catch let failure as ConformanceFailure { throw failure } catch {
        throw ConformanceFailure("\(label) threw \(describe(error))")
    }
}

/// Runs `operation`, which must fail with an `AuthError`; returns it.
func expectAuthError<T>(_ label: String, _ operation: () async throws -> T) async throws -> AuthError {
    do { _ = try await operation() } catch let error as AuthError { return error } catch let failure
        as ConformanceFailure
    {
        throw failure
    } catch {
        throw ConformanceFailure("\(label) threw \(describe(error)), expected an AuthError")
    }
    throw ConformanceFailure("\(label) succeeded, expected an error")
}

/// Fails with `detail` unless `condition` holds.
func require(_ condition: Bool, _ detail: @autoclosure () -> String) throws {
    if !condition { throw ConformanceFailure(detail()) }
}

/// A secret-free description of an error: `AuthError`'s own description, or the type name.
func describe(_ error: any Error) -> String {
    switch error {
    case let error as AuthError: error.description
    case is CancellationError: "CancellationError"
    case let failure as ConformanceFailure: failure.detail
    default: String(describing: type(of: error))
    }
}
