// The `multiauth-bench` benchmark tool (release build).
print("multiauth-bench: no benchmarks yet")
