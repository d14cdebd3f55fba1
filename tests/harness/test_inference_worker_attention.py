"""The worker's plain-PyTorch paged attention against a dense reference (CPU)."""

import pytest

torch = pytest.importorskip("torch")

from skill_tools.harness.inference.attention import paged_attn_varlen, paged_attn_with_kvcache  # noqa: E402


def _paged(seqs, block_size, heads, dim, gen):
    """Scatter per-request K/V into a shuffled paged cache; return cache, table, dense copies."""
    max_blocks = max(-(-len_ // block_size) for len_ in seqs)
    n_blocks = sum(-(-len_ // block_size) for len_ in seqs) + 3
    k_cache = torch.randn(n_blocks, block_size, heads, dim, generator=gen)
    v_cache = torch.randn(n_blocks, block_size, heads, dim, generator=gen)
    order = torch.randperm(n_blocks, generator=gen).tolist()
    table = torch.full((len(seqs), max_blocks), -1, dtype=torch.int32)
    dense = []
    for r, n in enumerate(seqs):
        blocks = [order.pop() for _ in range(-(-n // block_size))]
        table[r, : len(blocks)] = torch.tensor(blocks, dtype=torch.int32)
        k = torch.cat([k_cache[b] for b in blocks])[:n]
        v = torch.cat([v_cache[b] for b in blocks])[:n]
        dense.append((k, v))
    return k_cache, v_cache, table, dense


def _reference(q, k, v, scale):
    """q [Sq,H,D] attending causally to the last Sq of k/v [K,H,D]."""
    sq, kl = q.shape[0], k.shape[0]
    s = torch.einsum("qhd,khd->hqk", q, k) * scale
    pos_q = kl - sq + torch.arange(sq)
    s = s.masked_fill(torch.arange(kl)[None, :] > pos_q[:, None], float("-inf"))
    return torch.einsum("hqk,khd->qhd", torch.softmax(s, -1), v)


def test_decode_matches_dense_reference():
    gen = torch.Generator().manual_seed(0)
    seqs, bs, h, d = [5, 17, 1, 32], 8, 2, 16
    k_cache, v_cache, table, dense = _paged(seqs, bs, h, d, gen)
    q = torch.randn(len(seqs), 1, h, d, generator=gen)
    out = paged_attn_with_kvcache(q, k_cache, v_cache, torch.tensor(seqs, dtype=torch.int32),
                                  softmax_scale=d**-0.5, block_table=table)
    assert out.shape == q.shape
    for r, (k, v) in enumerate(dense):
        torch.testing.assert_close(out[r], _reference(q[r], k, v, d**-0.5), rtol=1e-4, atol=1e-4)


def test_decode_padding_rows_are_finite():
    gen = torch.Generator().manual_seed(1)
    k_cache, v_cache, table, _ = _paged([4, 4], 4, 1, 8, gen)
    q = torch.randn(2, 1, 1, 8, generator=gen)
    out = paged_attn_with_kvcache(q, k_cache, v_cache, torch.tensor([4, 0], dtype=torch.int32), block_table=table)
    assert torch.isfinite(out).all()


def test_varlen_prefill_and_mixed_match_reference():
    gen = torch.Generator().manual_seed(2)
    kv_lens, q_lens, bs, h, d = [7, 12, 3], [7, 1, 3], 4, 2, 8  # prefill, decode, prefill
    k_cache, v_cache, table, dense = _paged(kv_lens, bs, h, d, gen)
    q = torch.randn(sum(q_lens), h, d, generator=gen)
    cu_q = torch.tensor([0] + torch.tensor(q_lens).cumsum(0).tolist(), dtype=torch.int32)
    cu_k = torch.tensor([0] + torch.tensor(kv_lens).cumsum(0).tolist(), dtype=torch.int32)
    out = paged_attn_varlen(q, k_cache, v_cache, cu_q, cu_k, max(q_lens), max(kv_lens),
                            softmax_scale=d**-0.5, causal=True, block_table=table)
    start = 0
    for r, (k, v) in enumerate(dense):
        ref = _reference(q[start : start + q_lens[r]], k, v, d**-0.5)
        torch.testing.assert_close(out[start : start + q_lens[r]], ref, rtol=1e-4, atol=1e-4)
        start += q_lens[r]


def test_sliding_window_is_refused():
    gen = torch.Generator().manual_seed(3)
    k_cache, v_cache, table, _ = _paged([4], 4, 1, 8, gen)
    with pytest.raises(NotImplementedError):
        paged_attn_with_kvcache(torch.randn(1, 1, 1, 8), k_cache, v_cache, torch.tensor([4]),
                                block_table=table, window_size=(2, 0))
