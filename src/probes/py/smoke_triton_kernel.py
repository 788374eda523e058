"""The custom Triton kernel of the `triton` smoke test: SwiGLU's activation, silu(a) * b, fused.

Kept apart from smoke_triton.py because defining a @triton.jit function needs triton imported,
and the test must be able to say "triton is not installed" without importing it.
"""
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    a = tl.load(a_ptr + offsets, mask=inside)
    b = tl.load(b_ptr + offsets, mask=inside)
    tl.store(out_ptr + offsets, a * tl.sigmoid(a) * b, mask=inside)


def swiglu(a, b, block=1024):
    out = a.new_empty(a.shape)
    n = a.numel()
    swiglu_kernel[(triton.cdiv(n, block),)](a, b, out, n, BLOCK=block)
    return out
