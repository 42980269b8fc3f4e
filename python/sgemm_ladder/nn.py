"""Layers whose products run on the ladder (needs PyTorch).

    import sgemm_ladder.nn
    layer = sgemm_ladder.nn.Linear(4096, 11008, rung="auto", device="cuda")
    model = sgemm_ladder.nn.swap_linears(model)   # every torch.nn.Linear of a model, in place

``Linear`` is a torch.nn.Linear (a subclass: same parameters, same state dict, same initialisation,
isinstance(layer, torch.nn.Linear) holds) whose forward pass is one ``sgemm_ladder::gemm``: the
weight (out_features x in_features) read in place as the transposed operand, the bias added in the
product's epilogue, any batch of inputs (..., in_features) as one launch. Gradients are the same
operator (see torch_ops.py). The input must be a float32 CUDA tensor; anything else is refused
with the operator's message.

With rung="auto" (the default), on an H100 or H200 the large products (a prefill's projections, a
training step's) run on the tensor cores (rung 32's Ozaki scheme, FP32-accurate; docs/calling.md);
rung="auto_cuda_cores" keeps a layer to the CUDA cores, sgemm_ladder.cuda_cores_only() the process.
"""
from __future__ import annotations

import torch

from . import torch_ops

__all__ = ["Linear", "swap_linears"]


def linear(x: torch.Tensor, weight: torch.Tensor, bias, rung: str = "auto") -> torch.Tensor:
    """torch.nn.functional.linear on the ladder: x @ weightᵀ + bias, for x of any rank >= 1."""
    if 2 <= x.dim() <= 3:
        return torch_ops._GEMM(x, weight, bias, rung, 1.0, False, True)
    if x.dim() == 1:
        return torch_ops._GEMM(x.unsqueeze(0), weight, bias, rung, 1.0, False, True).squeeze(0)
    # More leading dimensions: one batch of them (a view where the strides allow).
    y = torch_ops._GEMM(x.flatten(0, -3), weight, bias, rung, 1.0, False, True)
    return y.unflatten(0, x.shape[:-2])


class Linear(torch.nn.Linear):
    """torch.nn.Linear with its product on the ladder's rung ``rung`` (an id, a slug or "auto")."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None,
                 rung="auto"):
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.rung = str(rung)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return linear(x, self.weight, self.bias, self.rung)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, rung={self.rung!r}"

    @classmethod
    def from_linear(cls, layer: torch.nn.Linear, rung="auto") -> "Linear":
        """A Linear that shares ``layer``'s weight and bias (the same Parameter objects: an
        optimizer that holds them, or a weight tied to an embedding, stays tied)."""
        new = cls(layer.in_features, layer.out_features, bias=layer.bias is not None, device="meta",
                  dtype=layer.weight.dtype, rung=rung)
        new.weight = layer.weight
        new.bias = layer.bias
        new.train(layer.training)
        return new


def swap_linears(model: torch.nn.Module, rung="auto") -> torch.nn.Module:
    """Replace every torch.nn.Linear in ``model`` (its submodules, at any depth) with a Linear on
    the ladder that shares its parameters, in place; returns the model (a new Linear when
    ``model`` itself is one). Linears already on the ladder keep their rung."""
    if type(model) is torch.nn.Linear:
        return Linear.from_linear(model, rung)
    for name, child in list(model.named_children()):
        if type(child) is torch.nn.Linear:
            setattr(model, name, Linear.from_linear(child, rung))
        else:
            swap_linears(child, rung)
    return model
