"""wrk's latency text (`812.00us`, `3.41ms`, `1.02s`) on stdin, as milliseconds."""
import sys

text = sys.stdin.read().strip()
units = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}
for suffix in ("us", "ms", "s", "m"):
    if text.endswith(suffix):
        print(f"{float(text[: -len(suffix)]) * units[suffix]:.2f}")
        break
else:
    print("?")
