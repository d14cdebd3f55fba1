"""Paged attention in plain PyTorch for MCore's dynamic-batching attention (GPU side).

MCore's ``Attention.flash_decode_and_prefill`` calls flash-attn's kv-cache entry points and asserts
flash-attn >= 2.7.3. Where no flash-attn is installed, :func:`install_attention` substitutes these
functions (same contract, static shapes, no host syncs in the decode path, so they are capturable);
the worker records which attention ran.
"""

from __future__ import annotations

from typing import Any

import torch


def _gather_pages(cache: torch.Tensor, block_table: torch.Tensor) -> torch.Tensor:
    """[blocks, block_size, H, D] paged cache + [B, max_blocks] table -> [B, max_blocks*block_size, H, D]."""
    pages = cache[block_table.long().clamp(min=0)]  # [B, MB, BS, H, D]
    b, mb, bs = pages.shape[:3]
    return pages.reshape(b, mb * bs, *cache.shape[2:])


def paged_attn_with_kvcache(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    cache_seqlens: torch.Tensor,
    softmax_scale: float | None = None,
    causal: bool = True,
    window_size: tuple[int, int] = (-1, -1),
    block_table: torch.Tensor | None = None,
    num_splits: int = 0,
    return_softmax_lse: bool = False,
    **_: Any,
):
    """Decode attention over a paged KV cache: q [B, Sq, H, D] -> [B, Sq, H, D].

    Static shapes and no host synchronisation, so it can be captured in a CUDA graph. Padded
    rows (cache_seqlens == 0) get a uniform softmax instead of NaNs.
    """
    if window_size not in ((-1, -1), [-1, -1], None):
        raise NotImplementedError("the PyTorch paged-attention fallback has no sliding window")
    k = _gather_pages(k_cache, block_table)
    v = _gather_pages(v_cache, block_table)
    sq, kv_len = q.shape[1], k.shape[1]
    scale = softmax_scale if softmax_scale is not None else q.shape[-1] ** -0.5
    scores = torch.einsum("bqhd,bkhd->bhqk", q.float(), k.float()) * scale
    pos_k = torch.arange(kv_len, device=q.device)
    lens = cache_seqlens.to(torch.long)
    mask = pos_k[None, :] >= lens[:, None]  # [B, K]: beyond the cached length
    mask = mask[:, None, None, :]
    if causal and sq > 1:  # query j sits at absolute position len - sq + j
        pos_q = lens[:, None] - sq + torch.arange(sq, device=q.device)[None, :]  # [B, Sq]
        mask = mask | (pos_k[None, None, :] > pos_q[:, :, None])[:, None, :, :]
    scores = scores.masked_fill(mask, -1e30)
    lse = torch.logsumexp(scores, dim=-1)  # [B, H, Sq]
    out = torch.einsum("bhqk,bkhd->bqhd", torch.softmax(scores, dim=-1), v.float()).to(q.dtype)
    return (out, lse) if return_softmax_lse else out


def paged_attn_varlen(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    cu_seqlens_k: torch.Tensor,
    max_seqlen_q: int | None = None,
    max_seqlen_k: int | None = None,
    softmax_scale: float | None = None,
    causal: bool = True,
    window_size: tuple[int, int] = (-1, -1),
    block_table: torch.Tensor | None = None,
    return_attn_probs: bool = False,
    **_: Any,
):
    """Prefill/mixed attention, q [T, H, D] packed by ``cu_seqlens_q``; k/v paged when
    ``block_table`` is given, else packed by ``cu_seqlens_k``. Eager only (reads lengths on
    the host), which is what MCore does when no non-decode graphs are captured."""
    if window_size not in ((-1, -1), [-1, -1], None):
        raise NotImplementedError("the PyTorch paged-attention fallback has no sliding window")
    scale = softmax_scale if softmax_scale is not None else q.shape[-1] ** -0.5
    out = torch.zeros_like(q)
    lse = torch.full((q.shape[1], q.shape[0]), float("-inf"), device=q.device, dtype=torch.float32)
    cq = cu_seqlens_q.tolist()
    ck = cu_seqlens_k.tolist()
    for i in range(len(cq) - 1):
        q0, q1 = cq[i], cq[i + 1]
        if q1 <= q0:
            continue
        kv_len = ck[i + 1] - ck[i]
        if block_table is not None:
            ki = _gather_pages(k, block_table[i : i + 1])[0, :kv_len]
            vi = _gather_pages(v, block_table[i : i + 1])[0, :kv_len]
        else:
            ki, vi = k[ck[i] : ck[i + 1]], v[ck[i] : ck[i + 1]]
        qi = q[q0:q1].float()
        s = torch.einsum("qhd,khd->hqk", qi, ki.float()) * scale
        if causal:
            pos_q = kv_len - (q1 - q0) + torch.arange(q1 - q0, device=q.device)
            s = s.masked_fill(torch.arange(kv_len, device=q.device)[None, :] > pos_q[:, None], -1e30)
        lse[:, q0:q1] = torch.logsumexp(s, dim=-1)
        out[q0:q1] = torch.einsum("hqk,khd->qhd", torch.softmax(s, dim=-1), vi.float()).to(q.dtype)
    return (out, lse, None) if return_attn_probs else out


def install_attention(mode: str) -> str:
    """Make MCore's dynamic-batching attention runnable; returns what is used."""
    import megatron.core.transformer.attention as attention

    have_flash = bool(attention.HAVE_FA3 or attention.HAVE_FA4 or attention.flash_attn_with_kvcache)
    if mode == "flash" or (mode == "auto" and have_flash):
        if not have_flash:
            raise RuntimeError("--attention flash: no flash-attn package is importable")
        return "flash-attn"
    attention.flash_attn_with_kvcache = paged_attn_with_kvcache
    attention.flash_attn_varlen_func = paged_attn_varlen
    attention.HAVE_FA3 = False
    attention.HAVE_FA4 = False
    attention.is_fa_min_version = lambda *a, **k: True  # the assert guards only the kernels above
    return "pytorch-paged-fallback"


