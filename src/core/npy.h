// Reading and writing tensors in NumPy's .npy format (format versions 1.0, 2.0 and 3.0).
//
// A file is the magic "\x93NUMPY", a version (major, minor), a little-endian header length
// (2 bytes in 1.0, 4 bytes in 2.0 and 3.0), then a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline, then the raw elements.
//
// dtypes and their descrs:
//   bool |b1   u8 |u1   i8 |i1   i16 <i2   i32 <i4   i64 <i8   f16 <f2   f32 <f4   f64 <f8
//   bf16 [('bf16', '<u2')]   (NumPy has no bfloat16: kiln's custom descr is a structured dtype
//        with one uint16 field named 'bf16' holding the raw bfloat16 bits. NumPy loads it as a
//        record array; `a['bf16']` gives the bits, and
//        `torch.from_numpy(a['bf16'].view(np.int16)).view(torch.bfloat16)` the values.)
//
// Writing: always version 1.0 when the header fits (2.0 otherwise), C order, little-endian,
// the header padded so that the data starts at a multiple of 64 bytes, as NumPy does. Any
// view is written as its contiguous elements; a device tensor's are copied to the host first.
// Reading gives a host tensor. The byte-order character may be '<', '|' or '=' (little-endian host); big-endian
// ('>') files are byte-swapped; fortran_order True is accepted and transposed into C order.
// Every malformed file is a Diagnostic naming the file and the problem (bad magic, truncated
// header, unsupported descr, bad shape, data size mismatch).
#pragma once

#include <string>
#include <string_view>

#include "core/tensor.h"
#include "support/diagnostic.h"

namespace kiln {

Expected<Tensor> read_npy(const std::string& path);
Status write_npy(const std::string& path, const Tensor& t);

// The same format from and to memory; `name` is used in error messages in place of a path.
Expected<Tensor> npy_from_bytes(std::string_view bytes, std::string_view name = "<memory>");
std::string npy_to_bytes(const Tensor& t);  // kiln::Error for a traced or undefined tensor

// The descr kiln writes for a dtype: "<f4", "|b1", "[('bf16', '<u2')]".
std::string npy_descr(DType dtype);

}  // namespace kiln
