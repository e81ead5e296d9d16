"""Prints a graph N levels deep, for the walks whose depth is the graph's (not the text's):
  chain    %x: f32[4] through N `neg` nodes, one after another
  diamond  N levels of a diamond: each level adds the `neg` and the `tanh` of the last level's value
  rows     %x: f32[256,8] through N levels of a row sum subtracted from the rows (row kernels)
Usage: deep_graph.py KIND N"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
shape = "256,8" if kind == "rows" else "4"
lines = [f"graph @g(%x: f32[{shape}]) -> (f32[{shape}]) {{"]
last = "%x"
for i in range(n):
    if kind == "chain":
        lines.append(f"  %n{i} = neg({last}) : f32[4]")
    elif kind == "diamond":
        lines.append(f"  %a{i} = neg({last}) : f32[4]")
        lines.append(f"  %b{i} = tanh({last}) : f32[4]")
        lines.append(f"  %n{i} = add(%a{i}, %b{i}) : f32[4]")
    elif kind == "rows":
        lines.append(f"  %s{i} = sum({last}) {{dim=[1], keepdim=true}} : f32[256,1]")
        lines.append(f"  %n{i} = sub({last}, %s{i}) : f32[256,8]")
    else:
        sys.exit(f"unknown kind {kind}")
    last = f"%n{i}"
lines += [f"  return {last}", "}"]
print("\n".join(lines))
