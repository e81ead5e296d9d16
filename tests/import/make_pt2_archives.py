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


class TextMasks(nn.Module):
    """Networks: transformers, the mask and position ops: arange (end only, and start/step),
    new_ones, comparisons (Tensor and Scalar), __and__, index with several index tensors,
    where, masked_fill, tril/triu, full/zeros/ones, cumsum, any/all, to(dtype), type_as,
    select, pow, min.other; _assert_tensor_metadata comes from .to(dtype)."""

    def forward(self, x, mask):  # x: f32[2, 5, 5], mask: i64[2, 5]
        n = x.shape[-1]
        pos = torch.arange(n)
        causal = pos[None, :] <= pos[:, None]
        keep = mask.new_ones((1, 1, n, n), dtype=torch.bool) & causal[None, None]
        pad = mask.to(torch.bool)[torch.arange(2)[:, None, None, None], pos[None, None, None, :]]
        attn = keep & pad  # [2, 1, 5, 5]
        s = x.unsqueeze(1).masked_fill(~attn, -1e4).squeeze(1)
        s = torch.where(s > 0.5, s, 0.0) + torch.where(mask[:, None, :] != 0, 1.0, s)
        t = torch.tril(s) - torch.triu(s, diagonal=1) * 0.5
        steps = torch.arange(1, 2 * n, 2, dtype=torch.float32)
        c = torch.cumsum(mask, dim=-1).to(torch.float32)
        flags = torch.any(x > 1.0, dim=-1) | torch.all(x < 2.0, dim=-1)
        f = torch.full((2, 5), 0.5) + torch.zeros(2, 5) + torch.ones(2, 5) * flags.type_as(x)
        y = t.pow(2.0) + steps + torch.min(c, f)[..., None] + (mask >= 1).float()[..., None]
        return y.select(0, 1) + (x.eq(0.25) | x.lt(-1.0)).float().sum()


class TextSplits(nn.Module):
    """Networks: transformers, several results read by getitem: split_with_sizes, split,
    chunk, unbind; alias (from a detach); sin/cos/abs/log of rotary-style code."""

    def forward(self, x):  # x: f32[2, 3, 10]
        a, b, c = torch.split(x, [2, 3, 5], dim=-1)
        d, e = x.split(5, dim=-1)
        f, g = x.chunk(2, dim=-1)
        u0, u1 = x.unbind(0)
        h = torch.cat([a.sin(), b.cos(), c.abs().log1p()], dim=-1)
        return h + d.repeat(1, 1, 2) * e.sum() + (f - g).sum() + (u0 * u1).detach()


class TextConvInplace(nn.Module):
    """Networks: transformers, Whisper's and T5's leftovers: conv1d (stride, padding, groups,
    with and without bias) and add_/mul_ on intermediates that no view shares."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, padding=1)
        self.c2 = nn.Conv1d(6, 6, 3, stride=2, padding=1, groups=2, bias=False)

    def forward(self, x):  # x: f32[2, 4, 9]
        h = F.gelu(self.c1(x))
        b = h * 2
        b.add_(torch.ones_like(h))
        b.mul_(0.5)
        return self.c2(b + h)


class TextLoss(nn.Module):
    """Networks: transformers, the training forms' loss: labels shifted with F.pad (constant,
    -100) and cross_entropy with ignore_index (aten.pad, aten.cross_entropy_loss)."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 7)

    def forward(self, x, labels):  # x: f32[2, 5, 8], labels: i64[2, 5]
        logits = self.head(x)
        shifted = F.pad(labels, (0, 1), value=-100)[:, 1:]
        mean = F.cross_entropy(logits.view(-1, 7), shifted.reshape(-1), ignore_index=-100)
        total = F.cross_entropy(logits.view(-1, 7), labels.view(-1), reduction="sum", label_smoothing=0.1)
        return mean + total / 100


class TextShiftRight(nn.Module):
    """Networks: transformers, T5's and BART's shift_right in the training forms: writes in
    place through a slice and a select of a fresh tensor (copy_, fill_ -> slice_scatter,
    select_scatter) and masked_fill_ on it."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, labels):  # labels: i64[2, 6] with some -100
        shifted = labels.new_zeros(labels.shape)
        shifted[:, 1:] = labels[:, :-1].clone()
        shifted[:, 0] = 3
        shifted.masked_fill_(shifted == -100, 1)
        return self.emb(shifted)


class TextCoreAttention(nn.Module):
    """Networks: transformers, the core-ATen form of attention: the CPU sdpa's result is
    [B,S,H,D]-strided, so the decomposition views its transpose(1, 2), which kiln's layout of
    the same value cannot view (imported as reshape)."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):  # x: f32[2, 5, 8]
        q, k, v = self.qkv(x).view(2, 5, 3, 2, 4).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return a.transpose(1, 2).reshape(2, 5, 8)


class TextEagerAttention(nn.Module):
    """Networks: transformers, attention written out as transformers' eager implementations
    write it: scores scaled, an additive causal mask, softmax, a cast back to the query's dtype
    and dropout (in eval mode), then the values."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):  # x: f32[2, 5, 8]
        q, k, v = self.qkv(x).view(2, 5, 3, 2, 4).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) * 0.5
        mask = torch.full((5, 5), float("-inf")).triu(1)
        p = torch.softmax(scores + mask, dim=-1).to(q.dtype)
        p = F.dropout(p, p=0.1, training=self.training)
        return (p @ v).transpose(1, 2).reshape(2, 5, 8)


class Unsupported(nn.Module):
    """Ops kiln lacks (cummax, kthvalue), on two lines: the error must list both."""

    def forward(self, x):
        y = torch.cummax(x, dim=-1).values
        z = torch.kthvalue(y, 2).values
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
    split.Tensor, split_with_sizes, unbind, select.int, unflatten; and Swin's roll."""

    def forward(self, x):  # x: [2, 6, 3, 3]
        a, b = x.chunk(2, dim=1)
        p, q, r = torch.split(x, [1, 2, 3], dim=1)
        e, f, g = torch.split(x, 2, dim=1)
        u, v = x.unbind(0)
        s = x[:, 4]
        w = x.flatten(2).unflatten(2, (3, 3)) * 0.5
        return (torch.cat([b, a], dim=1) * 2 + torch.cat([r, p, q], dim=1) + (u - v) + s.unsqueeze(1)
                + torch.cat([g, e, f], dim=1) + w + torch.roll(x, shifts=(1, -1), dims=(2, 3)))


class MutatedThenRead(nn.Module):
    """relu_ on a tensor whose view, taken before, is read after the mutation: torch.export
    keeps reading %view, so kiln must refuse the in-place op, not compute x * 2 + 1."""

    def forward(self, x):
        x = x * 2
        v = x.view(-1)
        torch.relu_(x)
        return v + 1


class TrainingBatchNorm(nn.Module):
    """batch_norm in training mode with running statistics, called functionally (no
    num_batches_tracked): ATen's op updates the buffers in place, which kiln refuses to drop."""

    def __init__(self):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(3))
        self.register_buffer("running_var", torch.ones(3))

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, training=True)


class MaxPoolIndices(nn.Module):
    """max_pool2d with return_indices: the indices are a result kiln's max_pool2d lacks."""

    def forward(self, x):
        return F.max_pool2d(x, 2, return_indices=True)


class DynamicText(nn.Module):
    """Dynamic shapes: a batch and a sequence dim the program reads with sym_size.int and
    passes to view, reshape, expand and arange, which kiln imports as symbolic attributes."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.pos = nn.Embedding(32, 8)

    def forward(self, x, mask):  # x: f32[b, t, 8], mask: f32[b, t]
        b, t, _ = x.shape
        h = self.proj(x) + self.pos(torch.arange(t))
        heads = h.view(b, t, 2, 4).transpose(1, 2)  # [b, 2, t, 4]
        keep = mask[:, None, None, :].expand(b, 1, t, t)
        scores = torch.matmul(heads, heads.transpose(-1, -2)) * keep
        return torch.matmul(scores, heads).transpose(1, 2).reshape(b, t, 8)


class MoeRouting(nn.Module):
    """A mixture-of-experts router: the top 2 of 4 experts per token (topk), the token slots
    ordered by expert (sort; torch's CPU sort keeps ties in index order, as kiln's does), the
    tokens per expert (histc over a given range), and a descending stable sort of the logits
    (sort.stable). One output: every result flattened and concatenated."""

    def forward(self, x):  # x: f32[6, 4] router logits
        p = torch.softmax(x, dim=-1)
        w, e = torch.topk(p, 2)
        flat = e.reshape(-1)
        s, order = torch.sort(flat)
        counts = torch.histc(flat.float(), bins=4, min=0, max=3)
        d, di = torch.sort(x, dim=0, descending=True, stable=True)
        lo, lo_i = torch.topk(x, 3, dim=0, largest=False)
        return torch.cat([w.reshape(-1), flat.float(), s.float(), order.float(), counts, d.reshape(-1),
                          di.reshape(-1).float(), lo.reshape(-1), lo_i.reshape(-1).float()])


class MoeGroupedMm(nn.Module):
    """transformers' grouped_mm_fallback custom op as its MoE layers call it: the tokens sorted
    by expert, offs the cumulative tokens per expert (histc, cumsum). Expert 2 has no token,
    and the two tokens of expert 4 (outside histc's range) lie past the last group: their rows
    stay 0."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(4, 8, 5))

    def forward(self, x, expert):  # x: f32[10, 8], expert: i64[10] sorted
        import transformers.integrations.moe  # noqa: F401  (registers torch.ops.transformers)

        offs = torch.cumsum(torch.histc(expert.float(), bins=4, min=0, max=3), 0).to(torch.int32)
        return torch.ops.transformers.grouped_mm_fallback(x, self.weight, offs)


class MoeDispatch(nn.Module):
    """How transformers' MoE layers order the token slots by expert: the slots sorted by
    expert, the inverse permutation written in place into an empty_like buffer (index_put_ in
    the training IR, empty_permuted and index_put in the core form), each slot's token by
    floor division (floor_divide)."""

    def forward(self, x):  # x: f32[6, 4] router logits
        _, e = torch.topk(torch.softmax(x, dim=-1), 2)
        flat = e.reshape(-1)
        _, perm = torch.sort(flat)
        inverse = torch.empty_like(perm)
        inverse[perm] = torch.arange(perm.numel())
        token = perm // 2
        return torch.cat([inverse.float(), token.float(), (flat.float() // 3.0)])


class Upsample(nn.Module):
    """Misc ops: upsample_bilinear2d.vec by size (align_corners false) and by scale factors
    (align_corners true), and (`default`) the .default overload with output_size beside scales."""

    def __init__(self, default=True):
        super().__init__()
        self.default = default

    def forward(self, x):
        a = F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=False)
        b = F.interpolate(x, scale_factor=(2.0, 1.5), mode="bilinear", align_corners=True)
        pieces = [a.flatten(1), b.flatten(1)]
        if self.default:
            pieces.append(torch.ops.aten.upsample_bilinear2d.default(x, [5, 6], False, 1.7, 2.3).flatten(1))
        return torch.cat(pieces, 1)


class MiscOps(nn.Module):
    """Misc ops of the mixture-of-experts models: floor_divide (tensor and scalar), empty_like
    and empty_permuted filled in place, repeat_interleave with and without a dim, index_put_
    (with accumulate too) into a fresh tensor."""

    def forward(self, x, idx):
        q = torch.cat([torch.floor_divide(idx, 3).to(x.dtype).flatten(), torch.floor_divide(x, -0.7).flatten()])
        e = torch.empty_like(x).fill_(1.5)
        p = torch.empty_permuted((2, 3, 4), (0, 2, 1), dtype=x.dtype).fill_(-0.5)
        r = torch.repeat_interleave(x, 2, dim=1)
        r2 = torch.repeat_interleave(x[0], 3)
        z = torch.zeros(5, 3)
        z.index_put_((idx[0],), x[1, :3])
        z.index_put_((idx[1],), x[0, :3] * 2, accumulate=True)
        return torch.cat([q.flatten(), e.flatten(), p.flatten(), r.flatten(), r2, z.flatten()])


class SliceOfSliceFill(nn.Module):
    """swin_t's shifted-window mask: `m[h, w] = cnt` writes fill_ through a slice of a slice of
    a fresh tensor, nine times."""

    def forward(self, x):
        m = x.new_zeros((6, 6))
        cnt = 0
        for h in (slice(0, -3), slice(-3, -1), slice(-1, None)):
            for w in (slice(0, -3), slice(-3, -1), slice(-1, None)):
                m[h, w] = cnt
                cnt += 1
        return x + m


class SliceOfSliceReadLater(nn.Module):
    """A write through a slice of a slice whose outer slice is read afterwards: refused."""

    def forward(self, x):
        m = x.new_zeros((4, 4))
        s = m[1:]
        s[:, 1:] = 2.0
        return x + m + s.sum()


def save(name, model, inputs, outputs=True, core_aten=False, keep_kiln_ops=False, dynamic_shapes=None, other=None):
    """Exports model on the tuple `inputs` to DATA/name.pt2 (decomposed to core ATen when
    `core_aten`; keeping kiln's ops whole as the zoo's NAME.core.pt2 do when also
    `keep_kiln_ops`), with each input as name_input<i>.npy and PyTorch's output as
    name_output.npy when `outputs`. With `dynamic_shapes` (torch.export's) the program is
    dynamic, and inputs `other` of other sizes go to name_other_input<i>.npy with PyTorch's
    output as name_other_output.npy."""
    model.eval()
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    if core_aten and keep_kiln_ops:
        import sys

        sys.path.insert(0, os.path.join(HERE, "..", "zoo"))
        import kiln_ops

        ep = ep.run_decompositions(kiln_ops.core_aten_keeping_kiln_ops(kiln_ops.kiln_op_names()))
    elif core_aten:
        ep = ep.run_decompositions()
    path = os.path.join(DATA, name + ".pt2")
    torch.export.save(ep, path)
    if not outputs:
        return path
    for i, x in enumerate(inputs):
        np.save(os.path.join(DATA, f"{name}_input{i}.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(DATA, name + "_output.npy"), model(*inputs).numpy())
    for i, x in enumerate(other or ()):
        np.save(os.path.join(DATA, f"{name}_other_input{i}.npy"), x.numpy())
    if other:
        with torch.no_grad():
            np.save(os.path.join(DATA, name + "_other_output.npy"), model(*other).numpy())
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
    save("text_masks", TextMasks(), (torch.randn(2, 5, 5), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])))
    save("text_splits", TextSplits(), (torch.randn(2, 3, 10),))
    save("text_conv_inplace", TextConvInplace(), (torch.randn(2, 4, 9),))
    save("text_loss", TextLoss(), (torch.randn(2, 5, 8), torch.randint(0, 7, (2, 5))))
    save("text_shift_right", TextShiftRight(), (torch.tensor([[5, 2, -100, 7, 1, 9], [4, -100, -100, 8, 0, 2]]),))
    # Their core forms (as the zoo's NAME.core.pt2): nll_loss, and the functional copy.
    save("text_loss_core", TextLoss(), (torch.randn(2, 5, 8), torch.randint(0, 7, (2, 5))), core_aten=True,
         keep_kiln_ops=True)
    save("text_shift_right_core", TextShiftRight(), (torch.tensor([[5, 2, -100, 7, 1, 9], [4, -100, -100, 8, 0, 2]]),),
         core_aten=True, keep_kiln_ops=True)
    save("text_core_attention", TextCoreAttention(), (torch.randn(2, 5, 8),), core_aten=True, keep_kiln_ops=True)
    save("text_eager_attention", TextEagerAttention().eval(), (torch.randn(2, 5, 8),))
    # conv1d's core form is convolution of a 3-D input (Whisper's encoder, decomposed).
    save("text_conv_core", TextConvInplace(), (torch.randn(2, 4, 9),), core_aten=True, keep_kiln_ops=True)
    save("unsupported", Unsupported(), (torch.randn(3, 5),), outputs=False)
    # A dynamic batch dim that no attribute needs (test_import_dynamic.cc; no .npy needed).
    ep = torch.export.export(Mlp(), (torch.randn(2, 4),), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    torch.export.save(ep, os.path.join(DATA, "dynamic.pt2"))
    save_dynamic()
    save_vision()
    save_moe()
    save_misc()
    tiny = save("tiny", Tiny(), (torch.randn(3),), outputs=False)
    strip(tiny, os.path.join(CORPUS, "tiny.pt2"))
    os.remove(tiny)


def save_dynamic():
    """The dynamic archives alone (`python -c "import make_pt2_archives as m; m.save_dynamic()"`
    from tests/import), in both forms, with inputs of two sizes."""
    torch.manual_seed(22)
    model = DynamicText()
    batch, seq = torch.export.Dim("batch", min=1, max=8), torch.export.Dim("seq", min=2, max=16)
    dims = {"x": {0: batch, 1: seq}, "mask": {0: batch, 1: seq}}
    inputs = (torch.randn(2, 5, 8), (torch.rand(2, 5) > 0.3).float())
    other = (torch.randn(3, 7, 8), (torch.rand(3, 7) > 0.3).float())
    save("dynamic_text", model, inputs, dynamic_shapes=dims, other=other)
    save("dynamic_text_core", model, inputs, core_aten=True, keep_kiln_ops=True, dynamic_shapes=dims, other=other)


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
    save("pieces_core", Pieces(), (x,), core_aten=True, keep_kiln_ops=True)  # as the zoo decomposes
    # Forms kiln refuses with a message: a transposed and a 1-D convolution (the core form
    # makes both aten.convolution), max pooling whose indices are used.
    save("conv_transpose_core", nn.ConvTranspose2d(2, 2, 3), (torch.randn(1, 2, 4, 4),), outputs=False,
         core_aten=True)
    save("conv1d_core", nn.Conv1d(2, 2, 3), (torch.randn(1, 2, 6),), outputs=False, core_aten=True)
    save("conv3d_core", nn.Conv3d(2, 2, 3), (torch.randn(1, 2, 4, 4, 4),), outputs=False, core_aten=True)
    save("max_pool_indices", MaxPoolIndices(), (torch.randn(1, 2, 4, 4),), outputs=False)
    save("mutated_then_read", MutatedThenRead(), (torch.randn(3, 4),), outputs=False)
    save("training_batch_norm", TrainingBatchNorm(), (torch.randn(4, 3, 2),), outputs=False)


def save_moe():
    """The mixture-of-experts archives alone (`python -c "import make_pt2_archives as m;
    m.save_moe()"` from tests/import regenerates just these): both forms, the core one keeping
    kiln's ops whole as the zoo's NAME.core.pt2 do."""
    torch.manual_seed(22)
    x = torch.randn(6, 4)
    save("moe_routing", MoeRouting(), (x,))
    save("moe_routing_core", MoeRouting(), (x,), core_aten=True, keep_kiln_ops=True)
    expert = torch.tensor([0, 0, 1, 1, 1, 3, 3, 3, 4, 4])
    save("moe_grouped_mm", MoeGroupedMm(), (torch.randn(10, 8), expert))
    x = torch.randn(6, 4)
    save("moe_dispatch", MoeDispatch(), (x,))
    save("moe_dispatch_core", MoeDispatch(), (x,), core_aten=True, keep_kiln_ops=True)
def save_misc():
    """The misc ops' archives alone (`python -c "import make_pt2_archives as m; m.save_misc()"`
    from tests/import regenerates just these)."""
    torch.manual_seed(2)
    x = torch.randn(2, 3, 4, 3)
    save("upsample", Upsample(), (x,))
    # As the zoo decomposes (kiln's ops kept whole: upsample_bilinear2d.vec stays one node).
    save("upsample_core", Upsample(default=False), (x,), core_aten=True, keep_kiln_ops=True)
    args = (torch.randn(2, 4, 3), torch.tensor([[4, 0, 2], [1, 1, 3]]))
    save("misc_ops", MiscOps(), args)
    save("misc_ops_core", MiscOps(), args, core_aten=True, keep_kiln_ops=True)
    save("slice_of_slice_fill", SliceOfSliceFill(), (torch.randn(6, 6),))
    save("slice_of_slice_read_later", SliceOfSliceReadLater(), (torch.randn(4, 4),), outputs=False)


if __name__ == "__main__":
    main()
