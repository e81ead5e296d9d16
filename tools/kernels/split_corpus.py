"""Splits the JSON written by triton_corpus.py into tests/kernels/ttir/: NAME.ttir (the TTIR
PyTorch analyzed, after a comment line saying where it came from) and NAME.json (everything
else: PyTorch's answer, what the GPU run wrote, kiln's deliberate differences, the source)."""
import json
import os
import sys


def main(corpus_path, out_dir):
    corpus = json.load(open(corpus_path))
    meta = corpus["meta"]
    os.makedirs(out_dir, exist_ok=True)
    for case in corpus["cases"]:
        name = case["name"]
        if "ttir" in case:
            with open(os.path.join(out_dir, name + ".ttir"), "w") as f:
                f.write(f"// {name}: TTIR from torch {meta['torch']}'s generate_ttir (Triton {meta['triton']}, "
                        f"{meta['device']}); made by tools/kernels/triton_corpus.py\n")
                f.write(case["ttir"].rstrip("\n") + "\n")
        rest = {k: v for k, v in case.items() if k != "ttir"}
        rest["made_with"] = meta
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(rest, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
