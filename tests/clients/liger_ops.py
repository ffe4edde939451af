"""Run by tests/clients/test_liger.py in a fresh interpreter: Liger-Kernel's ops (used
unchanged, with tritium as their Triton through compat) on the CPU, forward and backward,
each against a torch reference on fresh random data. Prints one JSON line per op: the
largest error of the outputs and of every input gradient, and the tolerance.

    python liger_ops.py SEED OP...
"""
import json
import sys

import torch
import torch.nn.functional as F


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def rms_ref(x, w, eps):
    x32 = x.float()
    return (x32 * torch.rsqrt(x32.square().mean(-1, keepdim=True) + eps)).to(x.dtype) * w


def sparsemax_ref(x, dim=-1):
    z, _ = torch.sort(x, dim=dim, descending=True)
    k = torch.arange(1, x.shape[dim] + 1, dtype=x.dtype)
    cs = z.cumsum(dim)
    support = (1 + k * z) > cs
    kz = support.sum(dim, keepdim=True)
    tau = (cs.gather(dim, kz - 1) - 1) / kz.to(x.dtype)
    return torch.clamp(x - tau, min=0)


def _norm(u, eps=1e-6):
    return u * torch.rsqrt(u.square().mean(-1, keepdim=True) + eps)


def jsd_ref(log_q, log_p, beta=0.5):
    p, q = log_p.exp(), log_q.exp()
    log_m = torch.log(beta * p + (1 - beta) * q)
    loss = beta * (p * (log_p - log_m)) + (1 - beta) * (q * (log_q - log_m))
    return loss.sum() / log_q.shape[0]


def ops(BT=37, H=96, V=211):
    """name -> (liger function, torch reference, input maker); the maker returns (inputs
    to differentiate, other inputs). BT rows, H hidden size, V vocabulary (ragged by
    default). Liger is imported here: with compat installed first, it runs on tritium
    (bench/bench_clients.py also times it on upstream Triton)."""
    import liger_kernel.transformers.functional as LF
    r = torch.randn

    def targets(n, v, ignore=True):
        t = torch.randint(0, v, (n,))
        if ignore:
            t[torch.rand(n) < 0.2] = -100
        return t

    def rope_inputs():
        bsz, nq, nk, seq, hd = 2, 4, 2, max(11, BT // 8), 32
        pos = torch.arange(seq, dtype=torch.float32)[:, None]
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        emb = torch.cat([pos * inv, pos * inv], dim=-1)[None]
        return (r(bsz, nq, seq, hd), r(bsz, nk, seq, hd)), (emb.cos(), emb.sin())

    def rope_ref(q, k, cos, sin):
        c, s = cos.unsqueeze(1), sin.unsqueeze(1)
        return q * c + rotate_half(q) * s, k * c + rotate_half(k) * s

    return {
        "rms_norm": (lambda x, w: LF.liger_rms_norm(x, w, 1e-6, in_place=False),
                     lambda x, w: rms_ref(x, w, 1e-6), lambda: ((r(BT, H), r(H)), ())),
        "rms_norm_bf16": (lambda x, w: LF.liger_rms_norm(x, w, 1e-6, in_place=False),
                          lambda x, w: rms_ref(x, w, 1e-6),
                          lambda: ((r(BT, H).bfloat16(), r(H).bfloat16()), ())),
        "layer_norm": (lambda x, w, b: LF.liger_layer_norm(x, w, b, 1e-5),
                       lambda x, w, b: F.layer_norm(x, (H,), w, b, 1e-5),
                       lambda: ((r(BT, H), r(H), r(H)), ())),
        "fused_add_rms_norm": (lambda x, res, w: LF.liger_fused_add_rms_norm(x, res, w, 1e-6,
                                                                             in_place=False),
                               lambda x, res, w: (rms_ref(x + res, w, 1e-6), x + res),
                               lambda: ((r(BT, H), r(BT, H), r(H)), ())),
        "swiglu": (LF.liger_swiglu, lambda a, b: F.silu(a) * b,
                   lambda: ((r(BT, H), r(BT, H)), ())),
        "geglu": (LF.liger_geglu, lambda a, b: F.gelu(a, approximate="tanh") * b,
                  lambda: ((r(BT, H), r(BT, H)), ())),
        "relu_squared": (LF.liger_relu_squared, lambda x: F.relu(x).square(),
                         lambda: ((r(BT, H),), ())),
        # Forward only: Liger's DyT backward sizes its partial sums by the GPU's SM count
        # and has no CPU branch (NUM_SMS unset), whatever Triton runs it.
        "dyt": (LF.liger_dyt, lambda x, a, g, b: g * torch.tanh(a * x) + b,
                lambda: ((), (r(BT, H), r(1) * 0.5, r(H), r(H)))),
        "poly_norm": (lambda x, w, b: LF.liger_poly_norm(x, w, b, 1e-6, in_place=False),
                      lambda x, w, b: w[0] * _norm(x ** 3) + w[1] * _norm(x * x) + w[2] * _norm(x) + b,
                      lambda: ((r(BT, H), r(3) * 0.5, r(())), ())),
        "softmax": (LF.liger_softmax, lambda x: torch.softmax(x, -1), lambda: ((r(BT, V),), ())),
        "sparsemax": (LF.liger_sparsemax, sparsemax_ref, lambda: ((r(BT, 53),), ())),
        "group_norm": (lambda x, w, b: LF.liger_group_norm(x, w, b, 8, 4, 1e-6),
                       lambda x, w, b: F.group_norm(x, 4, w, b, 1e-6),
                       lambda: ((r(max(3, BT // 64), 8, H // 2 - 3), r(8), r(8)), ())),
        "rope": (lambda q, k, c, s: LF.liger_rope(q, k, c, s), rope_ref, rope_inputs),
        "cross_entropy": (lambda x, t: LF.liger_cross_entropy(x, t, label_smoothing=0.1),
                          lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
                          lambda: ((r(BT, V),), (targets(BT, V),))),
        "cross_entropy_softcap": (
            lambda x, t: LF.liger_cross_entropy(x, t, softcap=7.0, reduction="sum"),
            lambda x, t: F.cross_entropy(7.0 * torch.tanh(x / 7.0), t, reduction="sum"),
            lambda: ((r(BT, V) * 4,), (targets(BT, V),))),
        "fused_linear_cross_entropy": (
            lambda x, w, t: LF.liger_fused_linear_cross_entropy(x, w, t),
            lambda x, w, t: F.cross_entropy(x @ w.T, t),
            lambda: ((r(BT, H), r(V, H) * 0.1), (targets(BT, V),))),
        "fused_linear_jsd": (
            lambda x, w, tx, tw: LF.liger_fused_linear_jsd(x, w, tx, tw, temperature=2.0),
            lambda x, w, tx, tw: jsd_ref(torch.log_softmax((x @ w.T) / 2.0, -1),
                                         torch.log_softmax((tx @ tw.T) / 2.0, -1)),
            lambda: ((r(BT, H), r(V, H) * 0.1), (r(BT, H), r(V, H) * 0.1))),
        "kl_div": (lambda x, t: LF.liger_kl_div(x, t, reduction="batchmean"),
                   lambda x, t: F.kl_div(x, t, reduction="batchmean"),
                   lambda: ((torch.log_softmax(r(BT, V), -1),), (torch.softmax(r(BT, V), -1),))),
        "jsd": (lambda x, t: LF.liger_jsd(x, t, beta=0.5), jsd_ref,
                lambda: ((torch.log_softmax(r(BT, V), -1),), (torch.log_softmax(r(BT, V), -1),))),
        "tvd": (lambda p, q: LF.liger_tvd(p, q, reduction="batchmean"),
                lambda p, q: 0.5 * (p - q).abs().sum() / p.shape[0],
                lambda: ((torch.softmax(r(BT, V), -1),), (torch.softmax(r(BT, V), -1),))),
    }


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def run(name, fn, ref, make):
    graded, fixed = make()
    results = []
    for f in (fn, ref):
        xs = [x.clone().requires_grad_() for x in graded]
        outs = [o for o in _flat(f(*xs, *fixed)) if torch.is_tensor(o)]
        if xs:
            # A fixed random weighting of every output, so each gradient path matters.
            torch.manual_seed(1234)
            loss = sum((o.float() * torch.randn(o.shape)).sum() for o in outs)
            loss.backward()
        results.append([o.detach().double() for o in outs] + [x.grad.double() for x in xs])
    got, want = results
    err = max(float((g - w).abs().max()) for g, w in zip(got, want))
    scale = max(float(w.abs().max()) for w in want)
    low = any(x.dtype == torch.bfloat16 for x in graded)
    return {"op": name, "err": err, "tol": (3e-2 if low else 1e-4) * max(1.0, scale),
            "n": len(got), "same_count": len(got) == len(want)}


def main():
    import tritium.compat
    tritium.compat.install()
    seed, names = int(sys.argv[1]), sys.argv[2:]
    table = ops()
    for name in names or list(table):
        torch.manual_seed(seed)
        try:
            row = run(name, *table[name])
        except Exception as e:  # noqa: BLE001  (reported per op)
            import traceback
            row = {"op": name, "error": f"{type(e).__name__}: {e}"[-2000:],
                   "where": traceback.format_exc()[-2500:]}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
