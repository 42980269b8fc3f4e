#!/usr/bin/env python3
"""The model benchmark: a small Llama-like model with every Linear on the ladder, against the same
model on PyTorch, in FP32, on one GPU. Writes bench/results/<gpu>_model.json; docs/model.md and
notebooks/model.ipynb show it.

    python3 bench/model/model_bench.py                        # the default model, every part
    python3 bench/model/model_bench.py --layers 2 --rounds 7 --json /tmp/h100_model.json
    python3 bench/model/model_bench.py --quick                # a tiny model, to see that it runs

The model is transformers' LlamaForCausalLM built from a LlamaConfig with random weights (nothing is
downloaded), FP32, TF32 off everywhere. Two copies with the same weights live in one process: one
as built, one after sgemm_ladder.nn.swap_linears (every projection on the rung --rung). Measured:

  model/prefill  a forward pass over --prefill BATCHxTOKENS (no gradients)
  model/decode   a forward pass of BATCH sequences x 1 token against a KV cache of --decode's
                 CACHE tokens (the cache is cut back after each step, outside the timed span)
  model/train    one training step on --train BATCHxTOKENS: forward, backward, AdamW step

Each is timed in --rounds rounds, the two models in alternating order, each round --reps calls
between CUDA events after a warm-up; pct_torch = torch's time / the ladder's x 100 per round
(above 100: the ladder is faster), reported as the median with the 95% order-statistic interval
over the rounds (docs/measuring.md explains the interval). The decode step is timed call by call,
so the host work of a call counts.

Where the time goes: every projection's product (q, k, v, o, gate, up, down, lm_head; in
training also the two products of its backward pass) is timed alone on both, and its calls per
step against the model's step time give its share; its roofline point is its arithmetic
intensity and GFLOP/s against the GPU's FP32 peak and DRAM bandwidth (read from the sgemm_bench
results of the same GPU, bench/results/<gpu>.json, which compute them in C++). The overhead per
call: the eager time of one product minus the same call replayed from a CUDA graph, for the
ladder's operator and for torch's, on a few shapes. Accuracy: logits and gradients of both models
against the same model in FP64 (norm-wise relative error).

Needs a CUDA GPU, PyTorch and transformers (`pip install .[model]`); the sgemm_ladder package
installed (`pip install --no-build-isolation .`, which builds its C++ operators) or on the path.
Without transformers or a GPU it says so and exits 3; bad arguments exit 2.
"""
from __future__ import annotations

import argparse
import copy
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[2]
PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "lm_head")
PHASES = ("prefill", "decode", "train")
EXIT_USAGE, EXIT_ENVIRONMENT = 2, 3
INTERVAL = "95% distribution-free order-statistic interval of the median over rounds (docs/measuring.md)"


class UsageError(Exception):
    pass


class EnvironmentProblem(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Statistics (no GPU): the median and its order-statistic interval, as sgemm_bench computes them


def median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def quantile(values: list[float], p: float) -> float:
    """The p-quantile, linear between order statistics (type 7, as bench/harness/stats.hpp)."""
    s = sorted(values)
    h = (len(s) - 1) * p
    lo = math.floor(h)
    return s[lo] + (h - lo) * (s[min(lo + 1, len(s) - 1)] - s[lo])


def median_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float]:
    """[x(k), x(n+1-k)] of the sorted values with the largest k whose chance of missing the median,
    2 P(Binomial(n, 1/2) < k), is at most 1 - confidence; the whole range when none reaches it."""
    s = sorted(values)
    n = len(s)
    best = 1
    for k in range(1, n // 2 + 1):
        miss = 2 * sum(math.comb(n, i) for i in range(k)) / 2**n
        if miss <= 1 - confidence:
            best = k
    return s[best - 1], s[n - best]


# ---------------------------------------------------------------------------------------------
# The results document (no GPU): what bench/results/<gpu>_model.json holds


@dataclass
class Timed:
    """One measurement: per-round times (ms per call) of the ladder and of torch."""

    ladder_ms: list[float]
    torch_ms: list[float]

    def row(self) -> dict:
        ratios = [100.0 * t / l for t, l in zip(self.torch_ms, self.ladder_ms)]
        lo, hi = median_interval(ratios)
        return {"ms": median(self.ladder_ms), "ms_q1": quantile(self.ladder_ms, 0.25),
                "ms_q3": quantile(self.ladder_ms, 0.75), "torch_ms": median(self.torch_ms),
                "torch_ms_q1": quantile(self.torch_ms, 0.25), "torch_ms_q3": quantile(self.torch_ms, 0.75),
                "pct_torch": median(ratios), "pct_torch_lo": lo, "pct_torch_hi": hi, "rounds": len(ratios)}


def phase_row(phase: str, timed: Timed, batch: int, tokens: int, cache: Optional[int] = None) -> dict:
    """A row model/<phase>: the step's time on both, pct_torch with its interval, tokens per second."""
    row = {"name": f"model/{phase}", "phase": phase, "batch": batch, "tokens": tokens, **timed.row()}
    if cache is not None:
        row["cache"] = cache
    processed = batch * tokens
    row["tokens_per_s"] = processed / (row["ms"] / 1e3)
    row["torch_tokens_per_s"] = processed / (row["torch_ms"] / 1e3)
    return row


LAYOUTS = {"forward": "nt", "backward_input": "nn", "backward_weight": "tn"}


def projection_row(phase: str, projection: str, pass_: str, m: int, n: int, k: int, calls: int, timed: Timed,
                   step_ms: float, torch_step_ms: float, peak_gflops: Optional[float],
                   dram_gbps: Optional[float]) -> dict:
    """One product of a projection in one phase: its time alone, its share of the model's step, its
    roofline point. pass_: forward (x @ Wᵀ), backward_input (dY @ W) or backward_weight (dYᵀ @ X)."""
    row = {"name": f"projection/{phase}/{projection}/{pass_}", "phase": phase, "projection": projection,
           "pass": pass_, "layout": LAYOUTS[pass_], "M": m, "N": n, "K": k, "calls": calls, **timed.row()}
    flops, moved = 2.0 * m * n * k, 4.0 * (m * k + k * n + m * n)
    row["share"] = calls * row["ms"] / step_ms
    row["torch_share"] = calls * row["torch_ms"] / torch_step_ms
    row["gflops"] = flops / (row["ms"] * 1e6)
    row["torch_gflops"] = flops / (row["torch_ms"] * 1e6)
    row["intensity"] = flops / moved  # FLOP per byte if each operand crossed DRAM once
    row["pct_peak"] = 100.0 * row["gflops"] / peak_gflops if peak_gflops else None
    # The attainable rate at this intensity: under the roof of bandwidth x intensity or the peak.
    roof = min(peak_gflops, dram_gbps * row["intensity"]) if peak_gflops and dram_gbps else None
    row["pct_roof"] = 100.0 * row["gflops"] / roof if roof else None
    return row


def overhead_row(m: int, n: int, k: int, ladder: dict, torch_: dict) -> dict:
    """The host overhead of one call: eager time minus the time of the same call in a CUDA graph."""
    return {"name": f"overhead/{m}x{n}x{k}", "M": m, "N": n, "K": k, "layout": "nt",
            "eager_us": ladder["eager_us"], "graph_us": ladder["graph_us"],
            "overhead_us": ladder["eager_us"] - ladder["graph_us"], "host_us": ladder["host_us"],
            "torch_eager_us": torch_["eager_us"], "torch_graph_us": torch_["graph_us"],
            "torch_overhead_us": torch_["eager_us"] - torch_["graph_us"], "torch_host_us": torch_["host_us"]}


def document(context: dict, phases: list[dict], projections: list[dict], overhead: list[dict],
             accuracy: list[dict]) -> dict:
    return {"context": context, "benchmarks": phases, "projections": projections, "overhead": overhead,
            "accuracy": accuracy}


def gpu_tag(name: str) -> str:
    """h100, h200, ... from the device's name; otherwise its words in lower case joined by '-'."""
    found = re.search(r"\b([A-Z]\d{2,4}[A-Za-z]?)\b", name)
    return found.group(1).lower() if found else "-".join(re.findall(r"[a-z0-9]+", name.lower())) or "gpu"


# ---------------------------------------------------------------------------------------------
# Arguments


@dataclass
class Settings:
    layers: int = 4
    hidden: int = 2048
    intermediate: int = 5632
    heads: int = 16
    kv_heads: int = 16
    vocab: int = 32000
    prefill: tuple = (4, 512)
    decode: tuple = (8, 512)     # sequences, cache length
    train: tuple = (4, 512)
    rounds: int = 9
    reps: int = 3
    warmup: int = 2
    rung: str = "auto"
    seed: int = 0
    parts: tuple = ("prefill", "decode", "train", "projections", "overhead", "accuracy")
    overhead_shapes: tuple = ((8, 2048, 2048), (8, 5632, 2048), (2048, 2048, 2048))
    json: Optional[str] = None
    extra: dict = field(default_factory=dict)


def pair(text: str, what: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or int(m[1]) < 1 or int(m[2]) < 1:
        raise UsageError(f"{what} must be BATCHxTOKENS with positive numbers, e.g. 4x512, got {text!r}")
    return int(m[1]), int(m[2])


def parse(argv=None) -> Settings:
    ap = argparse.ArgumentParser(prog="model_bench", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    d = Settings()
    ap.add_argument("--layers", type=int, default=d.layers)
    ap.add_argument("--hidden", type=int, default=d.hidden)
    ap.add_argument("--intermediate", type=int, default=d.intermediate)
    ap.add_argument("--heads", type=int, default=d.heads)
    ap.add_argument("--kv-heads", type=int, default=d.kv_heads)
    ap.add_argument("--vocab", type=int, default=d.vocab)
    ap.add_argument("--prefill", default="x".join(map(str, d.prefill)), help="BATCHxTOKENS of the prefill pass")
    ap.add_argument("--decode", default="x".join(map(str, d.decode)),
                    help="SEQUENCESxCACHE: one new token for each sequence against a cache of CACHE tokens")
    ap.add_argument("--train", default="x".join(map(str, d.train)), help="BATCHxTOKENS of the training step")
    ap.add_argument("--rounds", type=int, default=d.rounds, help="rounds (at least 6 for a 95%% interval)")
    ap.add_argument("--reps", type=int, default=d.reps, help="calls timed together in each round")
    ap.add_argument("--warmup", type=int, default=d.warmup)
    ap.add_argument("--rung", default=d.rung, help="the rung of every Linear: an id, a slug or auto")
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--parts", default=",".join(d.parts), help=f"which of {','.join(d.parts)} to run")
    ap.add_argument("--json", help="where to write the results (default bench/results/<gpu>_model.json)")
    ap.add_argument("--quick", action="store_true", help="a tiny model and few rounds: to see that it runs")
    a = ap.parse_args(argv)
    s = Settings(layers=a.layers, hidden=a.hidden, intermediate=a.intermediate, heads=a.heads, kv_heads=a.kv_heads,
                 vocab=a.vocab, prefill=pair(a.prefill, "--prefill"), decode=pair(a.decode, "--decode"),
                 train=pair(a.train, "--train"), rounds=a.rounds, reps=a.reps, warmup=a.warmup, rung=a.rung,
                 seed=a.seed, parts=tuple(p for p in a.parts.split(",") if p), json=a.json)
    if a.quick:
        s.layers, s.hidden, s.intermediate, s.heads, s.kv_heads, s.vocab = 2, 256, 512, 4, 4, 1000
        s.prefill, s.decode, s.train, s.rounds, s.reps, s.warmup = (2, 64), (4, 64), (2, 64), 6, 1, 1
        s.overhead_shapes = ((8, 256, 256),)
    unknown = set(s.parts) - set(Settings.parts)
    if unknown:
        raise UsageError(f"--parts: unknown {', '.join(sorted(unknown))} (the parts are {', '.join(Settings.parts)})")
    for name in ("layers", "hidden", "intermediate", "heads", "kv_heads", "vocab", "rounds", "reps"):
        if getattr(s, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
    if s.hidden % s.heads or s.heads % s.kv_heads:
        raise UsageError(f"--hidden ({s.hidden}) must divide by --heads ({s.heads}), and --heads by --kv-heads "
                         f"({s.kv_heads})")
    return s


# ---------------------------------------------------------------------------------------------
# On the GPU


def need_packages():
    """torch with a CUDA device, transformers and sgemm_ladder, or EnvironmentProblem saying what is missing."""
    try:
        import torch
    except ImportError:
        raise EnvironmentProblem("PyTorch is not installed (pip install torch)") from None
    try:
        import transformers  # noqa: F401
    except ImportError:
        raise EnvironmentProblem("transformers is not installed: the model benchmark builds its model with it "
                                 "(pip install transformers, or pip install .[model])") from None
    if not torch.cuda.is_available():
        raise EnvironmentProblem("no CUDA device for PyTorch: the model benchmark runs on a GPU")
    try:
        import sgemm_ladder  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(REPO / "python"))
        import sgemm_ladder  # noqa: F401
    return torch


def build_models(torch, s: Settings):
    from transformers import LlamaConfig, LlamaForCausalLM

    import sgemm_ladder.nn

    config = LlamaConfig(vocab_size=s.vocab, hidden_size=s.hidden, intermediate_size=s.intermediate,
                         num_hidden_layers=s.layers, num_attention_heads=s.heads, num_key_value_heads=s.kv_heads,
                         max_position_embeddings=max(s.prefill[1], s.decode[1] + 64, s.train[1]) * 2,
                         tie_word_embeddings=False, attn_implementation="sdpa")
    torch.manual_seed(s.seed)
    with torch.device("cuda"):
        reference = LlamaForCausalLM(config).float()
    ladder = sgemm_ladder.nn.swap_linears(copy.deepcopy(reference), rung=s.rung)
    swapped = sum(type(m) is sgemm_ladder.nn.Linear for m in ladder.modules())
    return config, reference, ladder, swapped


def time_rounds(torch, fns: dict[str, Callable], s: Settings, per_call: bool = False,
                after: Optional[dict[str, Callable]] = None) -> dict[str, list[float]]:
    """ms per call of each function, per round; the functions alternate their order every round.
    per_call: events around each call (after[name] runs between calls, outside the timed span);
    otherwise around --reps calls queued back to back."""
    after = after or {}
    for name, fn in fns.items():
        for _ in range(s.warmup):
            fn()
            after.get(name, lambda: None)()
    torch.cuda.synchronize()
    times = {name: [] for name in fns}
    names = list(fns)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for r in range(s.rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            fn, between = fns[name], after.get(name, lambda: None)
            torch.cuda.synchronize()
            if per_call:
                total = 0.0
                for _ in range(s.reps):
                    start.record()
                    fn()
                    end.record()
                    end.synchronize()
                    total += start.elapsed_time(end)
                    between()
                times[name].append(total / s.reps)
            else:
                start.record()
                for _ in range(s.reps):
                    fn()
                end.record()
                end.synchronize()
                times[name].append(start.elapsed_time(end) / s.reps)
    return times


def measure_phases(torch, s: Settings, models: dict) -> tuple[list[dict], dict[str, tuple[float, float]]]:
    """model/prefill, model/decode and model/train rows, and each phase's (ladder, torch) step time."""
    gen = torch.Generator(device="cuda").manual_seed(s.seed)
    vocab = models["torch"].config.vocab_size
    rows, steps = [], {}
    if "prefill" in s.parts:
        ids = torch.randint(0, vocab, s.prefill, device="cuda", generator=gen)

        def prefill(model):
            def run():
                with torch.inference_mode():
                    model(ids, use_cache=False)
            return run

        t = time_rounds(torch, {k: prefill(m) for k, m in models.items()}, s)
        rows.append(phase_row("prefill", Timed(t["ladder"], t["torch"]), *s.prefill))
    if "decode" in s.parts:
        batch, cache_len = s.decode
        prompt = torch.randint(0, vocab, (batch, cache_len), device="cuda", generator=gen)
        step = torch.randint(0, vocab, (batch, 1), device="cuda", generator=gen)
        fns, cut = {}, {}
        for name, model in models.items():
            with torch.inference_mode():
                cache = model(prompt, use_cache=True).past_key_values

            def run(model=model, cache=cache):
                with torch.inference_mode():
                    model(step, past_key_values=cache, use_cache=True)

            fns[name], cut[name] = run, (lambda cache=cache: cache.crop(-1))  # back to cache_len tokens
        t = time_rounds(torch, fns, s, per_call=True, after=cut)
        rows.append(phase_row("decode", Timed(t["ladder"], t["torch"]), batch, 1, cache=cache_len))
        del fns, cut
    if "train" in s.parts:
        ids = torch.randint(0, vocab, s.train, device="cuda", generator=gen)
        fns = {}
        for name, model in models.items():
            model.train()
            opt = torch.optim.AdamW(model.parameters(), lr=1e-5)

            def run(model=model, opt=opt):
                loss = model(ids, labels=ids).loss
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)

            fns[name] = run
        t = time_rounds(torch, fns, s)
        rows.append(phase_row("train", Timed(t["ladder"], t["torch"]), *s.train))
        for model in models.values():
            model.eval()
            model.zero_grad(set_to_none=True)
        del fns
        torch.cuda.empty_cache()
    for row in rows:
        steps[row["phase"]] = (row["ms"], row["torch_ms"])
    return rows, steps


def projection_shapes(config, s: Settings) -> dict[str, tuple[int, int, int]]:
    """Each projection's (rows of its weight = N, columns = K, calls per step)."""
    h, i, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    kv = config.num_key_value_heads * (h // config.num_attention_heads)
    return {"q_proj": (h, h, layers), "k_proj": (kv, h, layers), "v_proj": (kv, h, layers), "o_proj": (h, h, layers),
            "gate_proj": (i, h, layers), "up_proj": (i, h, layers), "down_proj": (h, i, layers),
            "lm_head": (config.vocab_size, h, 1)}


def measure_projections(torch, s: Settings, config, steps: dict, peak: Optional[float], dram: Optional[float]):
    import sgemm_ladder

    gemm = sgemm_ladder.torch_ops._GEMM
    rows = []
    tokens = {"prefill": s.prefill[0] * s.prefill[1], "decode": s.decode[0], "train": s.train[0] * s.train[1]}
    for phase in (p for p in PHASES if p in steps):
        m = tokens[phase]
        for name, (n, k, calls) in projection_shapes(config, s).items():
            x, w = torch.randn(m, k, device="cuda"), torch.randn(n, k, device="cuda") / math.sqrt(k)
            products = {"forward": ({"ladder": lambda: gemm(x, w, None, s.rung, 1.0, False, True),
                                     "torch": lambda: torch.nn.functional.linear(x, w)}, (m, n, k))}
            if phase == "train":
                g = torch.randn(m, n, device="cuda")
                products["backward_input"] = ({"ladder": lambda: gemm(g, w, None, s.rung, 1.0, False, False),
                                               "torch": lambda: torch.mm(g, w)}, (m, k, n))
                products["backward_weight"] = ({"ladder": lambda: gemm(g, x, None, s.rung, 1.0, True, False),
                                                "torch": lambda: torch.mm(g.t(), x)}, (n, k, m))
            for pass_, (fns, (pm, pn, pk)) in products.items():
                t = time_rounds(torch, fns, s)
                rows.append(projection_row(phase, name, pass_, pm, pn, pk, calls, Timed(t["ladder"], t["torch"]),
                                           *steps[phase], peak, dram))
            del x, w, products
    return rows


def call_costs(torch, fn: Callable, calls: int = 200) -> dict:
    """eager_us: per call, back to back between events; graph_us: the same calls replayed from a
    CUDA graph; host_us: the host's wall time per call while queueing them."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t0) / calls
    end.record()
    end.synchronize()
    eager = start.elapsed_time(end) / calls
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()  # warm on the capture stream
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):  # captured on the stream it was warmed on
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    start.record()
    graph.replay()
    end.record()
    end.synchronize()
    return {"eager_us": eager * 1e3, "graph_us": start.elapsed_time(end) / calls * 1e3, "host_us": host * 1e6}


def measure_overhead(torch, s: Settings) -> list[dict]:
    import sgemm_ladder

    gemm = sgemm_ladder.torch_ops._GEMM
    rows = []
    for m, n, k in s.overhead_shapes:
        x, w = torch.randn(m, k, device="cuda"), torch.randn(n, k, device="cuda")
        best = {}
        for name, fn in (("ladder", lambda: gemm(x, w, None, s.rung, 1.0, False, True)),
                         ("torch", lambda: torch.nn.functional.linear(x, w))):
            runs = [call_costs(torch, fn) for _ in range(3)]
            best[name] = min(runs, key=lambda r: r["eager_us"] - r["graph_us"])
        rows.append(overhead_row(m, n, k, best["ladder"], best["torch"]))
    return rows


def relative_error(x, ref) -> float:
    ref = ref.double()
    denom = ref.norm().item()
    return (x.double() - ref).norm().item() / denom if denom else float(x.double().norm().item() != 0)


def measure_accuracy(torch, s: Settings, models: dict) -> list[dict]:
    """Logits and the gradients of every parameter against the FP64 model, for both models, at the
    training step's timed shape (--train BATCHxTOKENS, the prefill's by default): the products the
    timed passes run, on whichever kernels "auto" picks for them."""
    reference = copy.deepcopy(models["torch"]).double()
    gen = torch.Generator(device="cuda").manual_seed(s.seed + 1)
    ids = torch.randint(0, reference.config.vocab_size, tuple(s.train), device="cuda", generator=gen)
    outputs = {}
    for name, model in (("fp64", reference), *models.items()):
        model.zero_grad(set_to_none=True)
        out = model(ids, labels=ids)
        out.loss.backward()
        outputs[name] = (out.logits.detach(), {n: p.grad.detach() for n, p in model.named_parameters()})
        model.zero_grad(set_to_none=True)
    logits64, grads64 = outputs["fp64"]
    rows = [{"name": "accuracy/logits"}, {"name": "accuracy/grads"}]
    for name in ("ladder", "torch"):
        key = "rel_err" if name == "ladder" else "torch_rel_err"
        logits, grads = outputs[name]
        rows[0][key] = relative_error(logits, logits64)
        errors = {n: relative_error(g, grads64[n]) for n, g in grads.items()}
        worst = max(errors, key=errors.get)
        rows[1][key] = errors[worst]
        rows[1]["worst_parameter" if name == "ladder" else "torch_worst_parameter"] = worst
    del reference
    torch.cuda.empty_cache()
    return rows


def smi(query: str) -> Optional[str]:
    """One nvidia-smi query for this GPU, or None without nvidia-smi."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, f"--query-gpu={query}", "--format=csv,noheader,nounits", "-i",
                              os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def clocks() -> dict:
    fields = ("clocks.sm", "clocks.max.sm", "clocks.mem", "power.draw", "power.limit", "temperature.gpu")
    text = smi(",".join(fields))
    if not text:
        return {}
    return {k.replace(".", "_"): v.strip() for k, v in zip(fields, text.split(","))}


def provenance() -> dict:
    """The commit measured and whether the tree was clean, as sgemm_bench's context names them
    (sgemm_ladder_git, sgemm_ladder_commit, sgemm_ladder_clean, sgemm_ladder_commit_from):
    tools/tree_stamp.py's answer for this checkout (git; on a copy of the tree without its history,
    the stamp written before the copy; $SGEMM_LADDER_GIT_DESCRIBE overrides both)."""
    sys.path.insert(0, str(REPO / "tools"))
    import tree_stamp

    return tree_stamp.context(REPO)


def peaks(tag: str) -> dict:
    """The FP32 peak and DRAM bandwidth that sgemm_bench recorded for this GPU, when its results exist."""
    from sgemm_ladder import results

    try:
        r = results.load(tag)
    except (FileNotFoundError, OSError, ValueError):
        return {}
    return {"fp32_peak_gflops": r.fp32_peak_gflops, "dram_peak_gbps": r.context_number("dram_peak_gbps"),
            "peaks_from": f"bench/results/{tag}.json"}


def context_of(torch, s: Settings, config, swapped: int, tag: str) -> dict:
    import transformers

    import sgemm_ladder

    props = torch.cuda.get_device_properties(0)
    rung = sgemm_ladder.library.find_rung(s.rung)
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "executable": "bench/model/model_bench.py", "command": " ".join(sys.argv),
            "gpu_name": props.name, "gpu": tag, "sm_count": props.multi_processor_count,
            "global_mem_bytes": props.total_memory, "driver_version": smi("driver_version"),
            "cuda_runtime": torch.version.cuda, "torch_version": torch.__version__,
            "transformers_version": transformers.__version__, "python": platform.python_version(),
            "sgemm_ladder_version": sgemm_ladder.__version__, **provenance(),
            "operators": sgemm_ladder.torch_ops.BACKEND, "rung": s.rung, "rung_slug": rung.slug,
            "linears_on_the_ladder": swapped, "tf32": "off (torch.backends.cuda.matmul and cudnn)",
            "model": {"layers": s.layers, "hidden": s.hidden, "intermediate": s.intermediate, "heads": s.heads,
                      "kv_heads": s.kv_heads, "vocab": s.vocab, "parameters": None},
            "prefill": "x".join(map(str, s.prefill)), "decode": f"{s.decode[0]}x1 against {s.decode[1]} cached",
            "train": "x".join(map(str, s.train)), "rounds": s.rounds, "reps": s.reps, "warmup": s.warmup,
            "interval": INTERVAL,
            "timing": "CUDA events; per round the two models in alternating order; prefill and train: reps calls "
                      "back to back, decode: events around each call (the cache cut back outside them)",
            **peaks(tag)}


def run(s: Settings) -> dict:
    torch = need_packages()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    tag = gpu_tag(torch.cuda.get_device_name(0))
    config, reference, ladder, swapped = build_models(torch, s)
    models = {"ladder": ladder, "torch": reference}
    for model in models.values():
        model.eval()
    context = context_of(torch, s, config, swapped, tag)
    context["model"]["parameters"] = sum(p.numel() for p in reference.parameters())
    context["clocks_before"] = clocks()
    say = lambda text: print(f"model_bench: {text}", flush=True)  # noqa: E731
    say(f"{context['gpu_name']}: {context['model']['parameters'] / 1e6:.0f}M parameters, {swapped} Linears on rung "
        f"{context['rung_slug']} ({context['operators']} operators)")
    accuracy = measure_accuracy(torch, s, models) if "accuracy" in s.parts else []
    phases, steps = measure_phases(torch, s, models)
    for row in phases:
        say(f"{row['name']}: {row['ms']:.3f} ms vs torch {row['torch_ms']:.3f} ms: {row['pct_torch']:.1f}% of torch "
            f"[{row['pct_torch_lo']:.1f}, {row['pct_torch_hi']:.1f}], {row['tokens_per_s']:.0f} tokens/s")
    del models, reference, ladder
    torch.cuda.empty_cache()
    projections = (measure_projections(torch, s, config, steps, context.get("fp32_peak_gflops"),
                                       context.get("dram_peak_gbps")) if "projections" in s.parts else [])
    overhead = measure_overhead(torch, s) if "overhead" in s.parts else []
    for row in overhead:
        say(f"{row['name']}: overhead {row['overhead_us']:.1f} us a call vs torch {row['torch_overhead_us']:.1f} us")
    context["clocks_after"] = clocks()
    return document(context, phases, projections, overhead, accuracy)


def main(argv=None) -> int:
    try:
        s = parse(argv)
        doc = run(s)
    except UsageError as e:
        print(f"model_bench: {e}", file=sys.stderr)
        return EXIT_USAGE
    except EnvironmentProblem as e:
        print(f"model_bench: {e}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    path = Path(s.json) if s.json else REPO / "bench" / "results" / f"{doc['context']['gpu']}_model.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"model_bench: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
