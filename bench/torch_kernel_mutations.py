"""PyTorch's side of kiln_bench_kernel_mutations: for every Triton kernel of the TTIR corpus
(tools/kernels/triton_corpus.py), the time PyTorch's own mutation analysis takes, split into
generating the TTIR (generate_ttir: Triton's front end, which kiln does not do: it is given the
TTIR) and the analysis of it (ttir_to_functions, then the walk: analyze_kernel_mutations in
PyTorch <= 2.9, analyze_kernel_access after), each timed on its own. Runs without a GPU (a
fixed sm_90 target, CPU tensors). Prints one flat JSON object: "<kernel>.generate_ms" and
"<kernel>.analyze_ms", medians of --runs."""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "kernels"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    import logging
    logging.disable(logging.WARNING)
    import torch
    import triton
    import torch._higher_order_ops.triton_kernel_wrap as tkw
    import triton_corpus as corpus

    corpus.use_cpu_without_gpu()
    out = {"torch": torch.__version__, "triton": triton.__version__}
    for name, kernel, make, _, _ in corpus.cases():
        kwargs = make()
        gen, analysis = [], []
        try:
            for _ in range(args.runs):
                t0 = time.perf_counter()
                module, arg_names = tkw.generate_ttir(kernel, dict(kwargs), {})
                t1 = time.perf_counter()
                functions = tkw.ttir_to_functions(module)
                fn_name = next(iter(functions.keys()))
                if hasattr(tkw, "analyze_kernel_mutations"):
                    tkw.analyze_kernel_mutations.reset()
                    tkw.analyze_kernel_mutations(functions, fn_name, len(arg_names))
                else:
                    tkw.analyze_kernel_access.reset()
                    tkw.get_tma_stores.reset()
                    tensors = frozenset(i for i, a in enumerate(arg_names) if isinstance(kwargs.get(a), torch.Tensor))
                    tkw.analyze_kernel_access(functions, fn_name, len(arg_names), tuple(arg_names), tensors)
                t2 = time.perf_counter()
                gen.append(t1 - t0)
                analysis.append(t2 - t1)
        except Exception:  # a kernel this Triton cannot lower (block pointers in Triton >= 3.7)
            continue
        out[f"{name}.generate_ms"] = 1e3 * statistics.median(gen)
        out[f"{name}.analyze_ms"] = 1e3 * statistics.median(analysis)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
