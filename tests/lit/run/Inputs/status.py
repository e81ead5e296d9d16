"""status.py N CMD ARGS...: runs CMD, prints its stdout and stderr (merged, in that order) and
exits 0 only if CMD exited with status N; the kiln run tests use it to tell a user error (1)
from a bad command line (2)."""
import subprocess
import sys

want = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, capture_output=True, text=True)
sys.stdout.write(proc.stdout + proc.stderr)
if proc.returncode != want:
    print(f"status.py: expected exit status {want}, got {proc.returncode}")
    sys.exit(1)
