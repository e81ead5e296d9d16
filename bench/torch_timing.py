"""Timing helper the bench/torch_*.py scripts share."""
import statistics
import time


def median_ms(fn, runs):
    """Milliseconds of fn(): the median of `runs` calls after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)
