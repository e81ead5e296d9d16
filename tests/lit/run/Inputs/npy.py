"""Makes and shows .npy files for the `kiln run` lit tests (run with %python).
  npy.py make FILE DTYPE SHAPE [arange|ones|fortran|bigendian|=V,V,...]   (SHAPE: 2,3 or "" for 0-d;
                                                                 =3,-1,0,2: these values, row-major)
  npy.py show FILE                                                 (dtype, shape, values)
  npy.py raw FILE BYTES                                            (a file with these bytes)
bf16 files use kiln's custom descr [('bf16', '<u2')]: a record array of raw bits."""
import sys

import numpy as np

BF16 = np.dtype([("bf16", "<u2")])
NP = {"bool": np.bool_, "u8": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "f16": np.float16, "f32": np.float32, "f64": np.float64}


def make(path, dtype, shape, kind="arange"):
    shape = tuple(int(s) for s in shape.split(",") if s)
    n = int(np.prod(shape, dtype=np.int64))
    if kind.startswith("="):
        values = np.array([float(v) for v in kind[1:].split(",") if v], dtype=np.float64)
        assert values.size == n, f"{values.size} values for shape {shape}"
    else:
        values = np.arange(n, dtype=np.float64) if kind != "ones" else np.ones(n)
    if dtype == "bf16":  # bf16 bits of small integers: the top half of the float32 bits
        bits = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        np.save(path, bits.view(BF16).reshape(shape))
        return
    a = values.astype(NP[dtype]).reshape(shape)
    if kind == "fortran":
        a = np.asfortranarray(a)
    if kind == "bigendian":
        a = a.astype(a.dtype.newbyteorder(">"))
    np.save(path, a)


def show(path):
    a = np.load(path)
    if a.dtype == BF16:
        bits = a["bf16"].astype(np.uint32) << 16
        print("bf16", a.shape, bits.view(np.float32).tolist())
    else:
        print(a.dtype, a.shape, a.tolist())


if sys.argv[1] == "make":
    make(*sys.argv[2:])
elif sys.argv[1] == "show":
    show(sys.argv[2])
else:
    open(sys.argv[2], "wb").write(sys.argv[3].encode())
