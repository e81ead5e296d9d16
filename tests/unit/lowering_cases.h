// Small graphs that exercise lowering: each op family, broadcasting, views, empty and
// size-1 dims, extern kernels. Shared by the lowering tests (loop-IR evaluator against the
// interpreter) and the CPU backend tests (compiled code against both).
#pragma once

#include <string>

namespace kiln {

struct LoweringCase {
  const char* name;
  const char* text;  // "DT" is replaced by the dtype under test
};

inline const LoweringCase kLoweringCases[] = {
    {"pointwise_chain",
     "graph @g(%x: DT[3,5]) -> (DT[3,5]) {\n %0 = exp(%x) : DT[3,5]\n %1 = neg(%0) : DT[3,5]\n"
     " %2 = sigmoid(%1) : DT[3,5]\n %3 = tanh(%2) : DT[3,5]\n %4 = relu(%3) : DT[3,5]\n return %4\n}"},
    {"broadcast",
     "graph @g(%x: DT[3,1,5], %y: DT[4,1]) -> (DT[3,4,5]) {\n %0 = sub(%x, %y) {alpha=0.5} : DT[3,4,5]\n"
     " %1 = maximum(%0, %y) : DT[3,4,5]\n %2 = div(%1, 3.0) : DT[3,4,5]\n return %2\n}"},
    {"compare_where",
     "graph @g(%x: DT[4,6], %y: DT[6]) -> (DT[4,6], bool[4,6]) {\n %0 = lt(%x, %y) : bool[4,6]\n"
     " %1 = where(%0, %x, 0.25) : DT[4,6]\n %2 = masked_fill(%x, %0, -2.0) : DT[4,6]\n"
     " %3 = add(%1, %2) : DT[4,6]\n return %3, %0\n}"},
    {"reductions",
     "graph @g(%x: DT[3,4,5]) -> (DT[3,1,5], DT[4], DT[3,4,1], DT[]) {\n"
     " %0 = sum(%x) {dim=[1], keepdim=true} : DT[3,1,5]\n %1 = mean(%x) {dim=[0, 2]} : DT[4]\n"
     " %2 = amax(%x) {dim=[-1], keepdim=true} : DT[3,4,1]\n %3 = amin(%x) : DT[]\n"
     " return %0, %1, %2, %3\n}"},
    {"views",
     "graph @g(%x: DT[2,3,4]) -> (DT[4,6], DT[3,2,4], DT[2,1,3,4], DT[2,2], DT[2,3,2,4]) {\n"
     " %0 = permute(%x) {dims=[2, 0, 1]} : DT[4,2,3]\n %1 = reshape(%0) {shape=[4, 6]} : DT[4,6]\n"
     " %2 = transpose(%x) {dim0=0, dim1=1} : DT[3,2,4]\n %3 = unsqueeze(%x) {dim=1} : DT[2,1,3,4]\n"
     " %4 = slice(%1) {dim=1, start=1, end=5, step=2} : DT[4,2]\n %5 = slice(%4) {dim=0, start=2} : DT[2,2]\n"
     " %6 = unsqueeze(%x) {dim=2} : DT[2,3,1,4]\n %7 = expand(%6) {size=[2, 3, 2, 4]} : DT[2,3,2,4]\n"
     " %8 = mul(%7, 2.0) : DT[2,3,2,4]\n return %1, %2, %3, %5, %8\n}"},
    {"size_one_and_squeeze",
     "graph @g(%x: DT[1,5,1]) -> (DT[5], DT[5,5]) {\n %0 = squeeze(%x) : DT[5]\n"
     " %1 = unsqueeze(%0) {dim=0} : DT[1,5]\n %2 = transpose(%1) {dim0=0, dim1=1} : DT[5,1]\n"
     " %3 = add(%2, %1) : DT[5,5]\n return %0, %3\n}"},
    {"empty_dim",
     "graph @g(%x: DT[0,3]) -> (DT[0,3], DT[3], DT[0]) {\n %0 = exp(%x) : DT[0,3]\n"
     " %1 = sum(%x) {dim=[0]} : DT[3]\n %2 = sum(%x) {dim=[1]} : DT[0]\n return %0, %1, %2\n}"},
    {"extern_matmul",
     "graph @g(%x: DT[3,4], %w: DT[5,4]) -> (DT[3,5]) {\n %0 = t(%w) : DT[4,5]\n"
     " %1 = matmul(%x, %0) : DT[3,5]\n %2 = relu(%1) : DT[3,5]\n return %2\n}"},
    {"extern_on_divmod_view",
     "graph @g(%x: DT[4,6]) -> (DT[8,3]) {\n %0 = transpose(%x) {dim0=0, dim1=1} : DT[6,4]\n"
     " %1 = reshape(%0) {shape=[8, 3]} : DT[8,3]\n %2 = softmax(%1) {dim=1} : DT[8,3]\n"
     " return %2\n}"},
};

inline std::string with_dtype(std::string s, const std::string& dt) {
  for (size_t at = s.find("DT"); at != std::string::npos; at = s.find("DT", at)) s.replace(at, 2, dt);
  return s;
}

}  // namespace kiln
