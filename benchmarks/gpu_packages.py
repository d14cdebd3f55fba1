"""Print the versions of the packages the GPU runs depend on, one `dist: version` line each, and
whether the Mamba kernels' compiled extensions import (torch first: they link against its libc10).
Used by the run scripts to record what the GPU machine had; never fails."""

import importlib.metadata as md
import importlib.util as u

PACKAGES = (("mamba_ssm", "mamba-ssm"), ("causal_conv1d", "causal-conv1d"), ("fla", "flash-linear-attention"),
            ("flash_attn", "flash-attn"), ("einops", "einops"), ("transformer_engine", "transformer-engine"),
            ("megatron.core", "megatron-core"), ("torch", "torch"), ("triton", "triton"),
            ("transformers", "transformers"))

for mod, dist in PACKAGES:
    try:
        found = u.find_spec(mod) is not None
    except ModuleNotFoundError:
        found = False
    try:
        ver = md.version(dist) if found else None
    except md.PackageNotFoundError:
        ver = "unknown"
    print(f"{dist}: {ver or 'not installed'}")
try:
    import torch  # noqa: F401  (loads libc10 for the extensions below)
    import causal_conv1d_cuda  # noqa: F401
    import selective_scan_cuda  # noqa: F401
    print("compiled extensions: selective_scan_cuda, causal_conv1d_cuda import")
except Exception as exc:  # noqa: BLE001 - recorded, not fatal
    print(f"compiled extensions: {type(exc).__name__}: {exc}")
