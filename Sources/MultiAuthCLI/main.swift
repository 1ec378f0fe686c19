// The `multiauth` command-line tool. See `multiauth --help`.
print("multiauth: the demo is not built yet")
