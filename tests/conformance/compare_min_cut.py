"""kiln's min-cut partitioner against the reference's on the transformer block of the
autograd acceptance tests: runs torch_min_cut.py (PyTorch's own partitioners) and
`kiln grad --json` on tests/lit/autograd/Inputs/transformer_block.kir for the budgets
1.0, 0.9, ..., 0.0, prints both side by side and checks the acceptance lines:
  - kiln's min cut (budget 1) saves at most 5% more bytes than PyTorch's;
  - it saves at most 80% of what kiln's default partition saves;
  - kiln's saved bytes never increase as the budget decreases.

    python compare_min_cut.py KILN_BINARY BLOCK_KIR
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUDGETS = [f"{1.0 - 0.1 * i:.1f}" for i in range(11)]


def kiln_grad(kiln, kir, *args):
    out = subprocess.run([kiln, "grad", kir, "--json", *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    kiln, kir = sys.argv[1], sys.argv[2]
    torch_out = subprocess.run([sys.executable, os.path.join(HERE, "torch_min_cut.py")], check=True,
                               capture_output=True, text=True)
    torch_numbers = json.loads(torch_out.stdout.strip().splitlines()[-1])
    kiln_default = kiln_grad(kiln, kir, "--partition=default")["saved_bytes"]
    kiln_min_cut = {b: kiln_grad(kiln, kir, f"--budget={b}") for b in BUDGETS}

    print(f"{'partition':<16}{'kiln bytes':>14}{'torch bytes':>14}{'kiln/torch':>12}{'kiln recomputed':>17}")
    torch_default = torch_numbers["default"]
    print(f"{'default':<16}{kiln_default:>14}{torch_default:>14}{kiln_default / torch_default:>12.3f}{0:>17}")
    for b in BUDGETS:
        k, t = kiln_min_cut[b]["saved_bytes"], torch_numbers["min_cut"][b]
        print(f"{'min-cut ' + b:<16}{k:>14}{t:>14}{k / t:>12.3f}{kiln_min_cut[b]['recomputed_nodes']:>17}")

    failures = []
    k1, t1 = kiln_min_cut["1.0"]["saved_bytes"], torch_numbers["min_cut"]["1.0"]
    if k1 > 1.05 * t1:
        failures.append(f"min-cut at budget 1 saves {k1} bytes, more than 5% above PyTorch's {t1}")
    if k1 > 0.8 * kiln_default:
        failures.append(f"min-cut at budget 1 saves {k1} bytes, more than 80% of the default partition's {kiln_default}")
    previous = None
    for b in BUDGETS:  # decreasing budgets
        saved = kiln_min_cut[b]["saved_bytes"]
        if previous is not None and saved > previous:
            failures.append(f"saved bytes grow from {previous} to {saved} as the budget decreases to {b}")
        previous = saved
    print(f"min-cut/default at budget 1: {k1 / kiln_default:.3f} (acceptance: <= 0.80; PyTorch: "
          f"{t1 / torch_default:.3f} of its own default)")
    for f in failures:
        print("FAIL:", f)
    print("conformance: " + ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
