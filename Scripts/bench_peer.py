"""Shared driver for the Python peers of multiauth-bench (Scripts/bench_*.py).

A peer is a `setup()` returning `operation(count)`, which performs the measured operation
`count` times. Modes:

- `--serve`: print `ready <library> <version>`, then for every line `N` read from stdin, run N
  operations and print the nanoseconds they took (time.perf_counter_ns, measured here so the
  bench never counts process start-up or pipe traffic). The bench interleaves these batches
  with its own.
- `--count N`: run N operations and exit (the bench runs this twice under callgrind, with N and
  3N, and divides the difference by 2N: start-up and imports cancel out).
- neither: print the median nanoseconds per operation over 5 batches of `--iterations`.
"""
import statistics
import sys
import time


def run(parser, setup, library, version):
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--count", type=int)
    parser.add_argument("--iterations", type=int, default=5_000)
    args = parser.parse_args()
    operation = setup(args)
    if args.count is not None:
        operation(args.count)
        return
    if args.serve:
        print(f"ready {library} {version}", flush=True)
        for line in sys.stdin:
            count = int(line)
            start = time.perf_counter_ns()
            operation(count)
            print(time.perf_counter_ns() - start, flush=True)
        return
    samples = []
    for _ in range(5):
        start = time.perf_counter_ns()
        operation(args.iterations)
        samples.append((time.perf_counter_ns() - start) / args.iterations)
    median = statistics.median(samples)
    print(f"{library} {version}: {median:.0f} ns/op ({1e9 / median:.0f}/s), median of 5 × {args.iterations}")
