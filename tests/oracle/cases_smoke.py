"""Three cases that prove the oracle harness itself: an elementwise op with broadcasting, a
matmul, and a reduction."""
import torch

from oracle_case import Case, randn

CASES = [
    Case("add_broadcast", """graph @g(%a: f32[3,4], %b: f32[4]) -> (f32[3,4]) {
  %0 = add(%a, %b) : f32[3,4]
  return %0
}""", inputs=[randn(3, 4), randn(4)], ref=torch.add),
    Case("matmul", """graph @g(%a: f32[2,3,4], %b: f32[4,5]) -> (f32[2,3,5]) {
  %0 = matmul(%a, %b) : f32[2,3,5]
  return %0
}""", inputs=[randn(2, 3, 4), randn(4, 5)], ref=torch.matmul, rtol=1e-5, atol=1e-5),
    Case("sum_dim_keepdim", """graph @g(%a: f32[3,4]) -> (f32[3,1]) {
  %0 = sum(%a) {dim=[1], keepdim=true} : f32[3,1]
  return %0
}""", inputs=[randn(3, 4)], ref=lambda a: a.sum(1, keepdim=True)),
]
