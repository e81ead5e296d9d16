"""Prints a file nested N levels deep in one construct, for the readers' nesting limits:
  dim      a graph whose input type is f32[((...(4)...))]
  floor    a graph whose input type is f32[floor(floor(...floor(T/2)...)/2)]
  loops    a loop program with N nested `for` loops
  index    a loop program loading %x[div(div(...div(i0, 2)..., 2), 2)]
  regions  a loop program with N nested cond kernels
Usage: deep_nesting.py KIND N"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "dim":
    print("graph @g(%x: f32[" + "(" * n + "4" + ")" * n + "]) -> (f32[4]) {\n  return %x\n}")
elif kind == "floor":
    print("graph @g(%x: f32[" + "floor(" * n + "T" + "/2)" * n + "]) -> (f32[1]) {\n  return %x\n}")
elif kind in ("loops", "index"):
    depth = n if kind == "loops" else 1
    index = "i0" if kind == "loops" else "div(" * n + "i0" + ", 2)" * n
    lines = ["loops @f(%x: f32[1]) -> (%out0) {", "  buffer %out0 : f32[1] strides [1]", "  kernel @k0 pointwise {"]
    lines += [f"for i{d} in range(1) {{" for d in range(depth)]
    lines += [f"%0 = load %x[{index}]", "store %out0[0], %0"]
    lines += ["}"] * depth + ["  }", "}"]
    print("\n".join(lines))
elif kind == "regions":
    lines = ["loops @f(%p: bool[1], %x: f32[1]) -> (%out0) {", "  buffer %out0 : f32[1] strides [1]"]
    lines += [f"kernel @k{d} cond %p {{ then {{" for d in range(n)]
    lines += ["} else { } }"] * n + ["}"]
    print("\n".join(lines))
else:
    sys.exit(f"unknown kind {kind}")
