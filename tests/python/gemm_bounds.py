"""How far a rung's result may be from the exact product (shared by the GPU tests)."""


def gemm_tolerance(rung, k: int) -> float:
    """Bound on |C - C_ref| relative to |alpha||A||B| + |beta||C| for a K-deep product, from the
    registry's precision models: FP32 FFMA ((K+2) * 2^-24), 3xTF32 (truncating accumulation,
    2^-20 per product), 1xTF32 (operands rounded to 10 bits: 2^-10 per product)."""
    accumulation = (k + 2) * 2.0**-21
    return accumulation + (2.0**-20 if rung.fp32_accurate else 2.0**-9)
