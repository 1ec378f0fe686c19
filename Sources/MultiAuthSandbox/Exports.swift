// The emulated providers are written on the deterministic runtime (clock, in-process transport,
// faults, inbox, fakes); importing MultiAuthSandbox brings the runtime too, so code written
// against the single sandbox module keeps compiling unchanged.
@_exported import MultiAuthSandboxRuntime
