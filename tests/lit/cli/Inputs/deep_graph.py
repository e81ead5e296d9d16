"""Prints a graph N nodes deep, for the walks whose depth is the graph's (not the text's):
  chain    %x through N `neg` nodes, one after another
  diamond  N levels of a diamond: each level's `neg` and `exp` of the last level's value, added
Usage: deep_graph.py KIND N"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
lines = ["graph @g(%x: f32[4]) -> (f32[4]) {"]
last = "%x"
for i in range(n):
    if kind == "chain":
        lines.append(f"  %n{i} = neg({last}) : f32[4]")
        last = f"%n{i}"
    elif kind == "diamond":
        lines.append(f"  %a{i} = neg({last}) : f32[4]")
        lines.append(f"  %b{i} = tanh({last}) : f32[4]")
        lines.append(f"  %n{i} = add(%a{i}, %b{i}) : f32[4]")
        last = f"%n{i}"
    else:
        sys.exit(f"unknown kind {kind}")
lines += [f"  return {last}", "}"]
print("\n".join(lines))
