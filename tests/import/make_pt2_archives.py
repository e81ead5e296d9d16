"""Writes the .pt2 archives the import tests read (tests/unit/test_import_pt2.cc), with each
model's inputs and PyTorch's output as .npy, and the fuzz target's seed (tests/fuzz/corpus_pt2/).

Run with the project's venv (PyTorch 2.15):  .venv/bin/python tests/import/make_pt2_archives.py
The archives are committed (a few KB each), so the tests need no Python; rerun this script
only to regenerate them. Weights are seeded, so a rerun changes only torch's own metadata.
"""
import os
import zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
CORPUS = os.path.join(HERE, "..", "fuzz", "corpus_pt2")


class Mlp(nn.Module):
    """Linear-ReLU-Linear: aten.linear and aten.relu."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 8)
        self.l2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


class Block(nn.Module):
    """A transformer-ish block: layer_norm, linear, gelu, attention-like softmax of a product,
    a buffer, slices and a transpose, and a tanh-approximated gelu."""

    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(8)
        self.qk = nn.Linear(8, 16)
        self.proj = nn.Linear(8, 8, bias=False)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, 8))

    def forward(self, x):  # x: [2, 3, 8]
        h = self.ln(x)
        qk = self.qk(h)
        q, k = qk[..., :8], qk[..., 8:]
        a = torch.softmax(q @ k.transpose(-1, -2) / 8**0.5, dim=-1)
        y = F.gelu(self.proj(a @ h), approximate="tanh")
        return x + F.gelu(y) * self.scale


class Views(nn.Module):
    """Weights that share storage: tied linears, a transposed (non-contiguous) parameter, a
    buffer viewing the same storage at an offset, a constant, a non-persistent buffer, and a
    clamp whose bound is -inf (written as the JSON string "-Infinity")."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4, bias=False)
        self.b = nn.Linear(4, 4, bias=False)
        self.b.weight = self.a.weight
        base = torch.randn(4, 6)
        self.c = nn.Parameter(base.t())
        self.register_buffer("d", base[1:3, 2:5])
        self.register_buffer("nb", torch.full((4,), 0.25), persistent=False)
        self.k = torch.arange(4.0)

    def forward(self, x):  # x: [2, 4]
        y = self.b(self.a(x)) @ self.c[:4, :4]
        return y + self.d.sum() + torch.clamp(x, min=float("-inf"), max=1.0) + self.k * self.nb


class Ops(nn.Module):
    """The rest of the op table in the training IR: embedding, scaled_dot_product_attention
    (causal), dropout (eval), reshape/view/transpose/t/expand/flatten/unsqueeze/squeeze.dim,
    clone, cat, mean.dim, sum.dim_IntList, elementwise ops; two user inputs, one of them int64."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.fc = nn.Linear(8, 8)
        self.drop = nn.Dropout(0.1)

    def forward(self, idx, x):  # idx: i64[2, 3], x: [2, 3, 8]
        e = self.emb(idx) + x
        q = e.view(2, 3, 2, 4).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, q, q, is_causal=True)
        h = a.transpose(1, 2).reshape(2, 3, 8)
        h = self.drop(torch.sigmoid(h) * torch.tanh(h) - F.silu(h).exp() / 3 + torch.rsqrt(h * h + 1))
        m = h.mean(dim=-1, keepdim=True)
        c = torch.cat([h - m, m.expand(2, 3, 8)], dim=-1).flatten(0, 1)
        u = c.unsqueeze(0).squeeze(0).clone()
        return self.fc(u[:, :8]).sum(dim=0) + u.t().sum() + torch.sqrt(torch.neg(u) * u + 4).sum()


class Unsupported(nn.Module):
    """Ops kiln lacks (sort, topk), on two lines: the error must list both."""

    def forward(self, x):
        y = torch.sort(x, dim=-1).values
        z = torch.topk(y, 2).values
        return torch.relu(z)


class Tiny(nn.Module):
    """The fuzz seed: one op, no weights."""

    def forward(self, x):
        return torch.relu(x)


class VisionNet(nn.Module):
    """The vision rows and converters (docs/IMPORT.md, "Networks: vision"): conv2d (strided,
    padded, depthwise with groups, 1x1 without bias), batch norm in eval with nontrivial running
    statistics, in-place relu_/hardtanh_ (ReLU6)/silu_/add_/dropout_, max/avg/adaptive-avg
    pooling, hardswish, hardsigmoid, relu6, mean over H and W, cat, flatten, linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.pw = nn.Conv2d(16, 8, 1, bias=False)
        self.se = nn.Conv2d(8, 8, 1)
        self.fc = nn.Linear(16, 5)
        self.drop = nn.Dropout(0.2, inplace=True)
        for bn in (self.bn1, self.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.2, 0.2)

    def forward(self, x):  # x: [2, 3, 16, 16]
        x = F.relu(self.bn1(self.conv1(x)), inplace=True)
        x = F.max_pool2d(x, 3, stride=2, padding=1)  # [2, 8, 4, 4]
        y = F.relu6(self.bn2(self.dw(x)), inplace=True)
        y += x
        z = F.hardswish(self.pw(torch.cat([y, F.silu(x, inplace=True)], dim=1)))
        z = z * F.hardsigmoid(self.se(z.mean((2, 3), keepdim=True)))
        z = F.relu6(z)
        p = F.avg_pool2d(z, 2)  # [2, 8, 2, 2]
        h = torch.cat([F.adaptive_avg_pool2d(p, 1), z.mean((2, 3), keepdim=True)], dim=1)
        return self.fc(self.drop(h.flatten(1)))  # dropout_ on a view nothing reads later: imported


class Pieces(nn.Module):
    """Ops with several results (ShuffleNet's chunk, ViT's select of the class token and
    unbind of q/k/v, EfficientFormer's split_with_sizes) and ViT's unflatten: chunk,
    split.Tensor, split_with_sizes, unbind, select.int, unflatten."""

    def forward(self, x):  # x: [2, 6, 3, 3]
        a, b = x.chunk(2, dim=1)
        p, q, r = torch.split(x, [1, 2, 3], dim=1)
        e, f, g = torch.split(x, 2, dim=1)
        u, v = x.unbind(0)
        s = x[:, 4]
        w = x.flatten(2).unflatten(2, (3, 3)) * 0.5
        return (torch.cat([b, a], dim=1) * 2 + torch.cat([r, p, q], dim=1) + (u - v) + s.unsqueeze(1)
                + torch.cat([g, e, f], dim=1) + w)


class MutatedThenRead(nn.Module):
    """relu_ on a tensor whose view, taken before, is read after the mutation: torch.export
    keeps reading %view, so kiln must refuse the in-place op, not compute x * 2 + 1."""

    def forward(self, x):
        x = x * 2
        v = x.view(-1)
        torch.relu_(x)
        return v + 1


class MaxPoolIndices(nn.Module):
    """max_pool2d with return_indices: the indices are a result kiln's max_pool2d lacks."""

    def forward(self, x):
        return F.max_pool2d(x, 2, return_indices=True)


def save(name, model, inputs, outputs=True, core_aten=False):
    """Exports model on the tuple `inputs` to DATA/name.pt2 (decomposed to core ATen when
    `core_aten`), with each input as name_input<i>.npy and PyTorch's output as
    name_output.npy when `outputs`."""
    model.eval()
    ep = torch.export.export(model, inputs)
    if core_aten:
        ep = ep.run_decompositions()
    path = os.path.join(DATA, name + ".pt2")
    torch.export.save(ep, path)
    if not outputs:
        return path
    for i, x in enumerate(inputs):
        np.save(os.path.join(DATA, f"{name}_input{i}.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(DATA, name + "_output.npy"), model(*inputs).numpy())
    return path


def strip(src, dst, drop=("data/sample_inputs/", ".data/serialization_id")):
    """A copy of archive src without the entries the reader does not need (a smaller seed)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            if any(d in info.filename for d in drop):
                continue
            zout.writestr(info.filename, zin.read(info.filename))


def main():
    os.makedirs(DATA, exist_ok=True)
    os.makedirs(CORPUS, exist_ok=True)
    torch.manual_seed(0)
    save("mlp", Mlp(), (torch.randn(2, 4),))
    save("block", Block(), (torch.randn(2, 3, 8),))
    save("views", Views(), (torch.randn(2, 4),))
    save("ops", Ops(), (torch.randint(0, 10, (2, 3)), torch.randn(2, 3, 8)))
    # The core-ATen (decomposed) form: linear becomes permute + addmm.
    save("mlp_core", Mlp(), (torch.randn(2, 4),), core_aten=True)
    save("unsupported", Unsupported(), (torch.randn(3, 5),), outputs=False)
    # A dynamic batch dim: not imported yet, a clear error (no .npy needed).
    ep = torch.export.export(Mlp(), (torch.randn(2, 4),), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    torch.export.save(ep, os.path.join(DATA, "dynamic.pt2"))
    save_vision()
    tiny = save("tiny", Tiny(), (torch.randn(3),), outputs=False)
    strip(tiny, os.path.join(CORPUS, "tiny.pt2"))
    os.remove(tiny)


def save_vision():
    """The vision archives alone (`python -c "import make_pt2_archives as m; m.save_vision()"`
    from tests/import regenerates just these)."""
    torch.manual_seed(21)
    net = VisionNet()
    x = torch.randn(2, 3, 16, 16)
    save("vision", net, (x,))
    # The core form: convolution, _native_batch_norm_legit_no_training, the decomposed rest.
    save("vision_core", net, (x,), core_aten=True)
    x = torch.randn(2, 6, 3, 3)
    save("pieces", Pieces(), (x,))
    save("pieces_core", Pieces(), (x,), core_aten=True)
    # Forms kiln refuses with a message: a transposed and a 1-D convolution (the core form
    # makes both aten.convolution), max pooling whose indices are used.
    save("conv_transpose_core", nn.ConvTranspose2d(2, 2, 3), (torch.randn(1, 2, 4, 4),), outputs=False,
         core_aten=True)
    save("conv1d_core", nn.Conv1d(2, 2, 3), (torch.randn(1, 2, 6),), outputs=False, core_aten=True)
    save("max_pool_indices", MaxPoolIndices(), (torch.randn(1, 2, 4, 4),), outputs=False)
    save("mutated_then_read", MutatedThenRead(), (torch.randn(3, 4),), outputs=False)


if __name__ == "__main__":
    main()
