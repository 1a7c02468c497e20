"""Benchmark: how fast the embedded SLM reads a prompt and writes tokens here, per weight format.

    python -m benchmarks.slm_speed [--formats q4_1,q4_0,q8_0,f16] [--prompt-tokens 560] [--threads 0]

Prompt reading (prefill) is what most of a dgrag answer costs on a CPU: a local answer reads ~450 prompt
tokens and writes a few dozen. The bundled GGUF is Q4_1; this converts it into the other formats with
llama.cpp's own quantizer (into a temporary directory, nothing is downloaded), times prefill and decode
for each (best of 3), and prints one table. A format that is faster here can be used with
``slm.model_path`` after converting it the same way; its answer quality is not measured by this script.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import tempfile
import time
from pathlib import Path

from shared.models.locate import bundled_slm_path

FTYPES = {"f32": "LLAMA_FTYPE_ALL_F32", "f16": "LLAMA_FTYPE_MOSTLY_F16", "q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0",
          "q4_0": "LLAMA_FTYPE_MOSTLY_Q4_0", "q4_1": "LLAMA_FTYPE_MOSTLY_Q4_1"}  # fmt: skip
SENTENCE = "The quarterly report said revenue grew in the north region while costs fell. "
DECODE_TOKENS = 64


def convert(source: Path, fmt: str, out_dir: Path) -> Path:
    """``source`` re-quantized to ``fmt`` with llama.cpp's quantizer."""
    import llama_cpp

    if fmt == "q4_1" and source.name.lower().endswith("q4_1.gguf"):
        return source
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, FTYPES[fmt])
    params.allow_requantize = True
    target = out_dir / f"{source.stem}.{fmt}.gguf"
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), ctypes.byref(params)) != 0:
        raise RuntimeError(f"llama.cpp could not convert {source} to {fmt}")
    return target


def measure(path: Path, prompt_tokens: int, threads: int) -> tuple[float, float]:
    """(prefill tokens/s, decode tokens/s), best of 3."""
    import llama_cpp

    threads = threads or os.cpu_count() or 1  # as the llama_cpp backend runs it
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=2048, n_threads=threads, seed=0, verbose=False)
    try:
        tokens = llm.tokenize((SENTENCE * (prompt_tokens // 12 + 1)).encode())[:prompt_tokens]
        prefill = 0.0
        for _ in range(3):
            llm.reset()  # type: ignore[no-untyped-call]
            started = time.perf_counter()
            llm.eval(tokens)
            prefill = max(prefill, len(tokens) / (time.perf_counter() - started))
        decode = 0.0
        for _ in range(3):
            started, n = time.perf_counter(), 0
            for _token in llm.generate(tokens[:8], temp=0.0, reset=True):
                n += 1
                if n >= DECODE_TOKENS:
                    break
            decode = max(decode, n / (time.perf_counter() - started))
    finally:
        llm.close()
    return prefill, decode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--formats", default="q4_1,q4_0,q8_0,f16", help=f"comma-separated, of {sorted(FTYPES)}")
    parser.add_argument("--prompt-tokens", type=int, default=560)
    parser.add_argument("--threads", type=int, default=0, help="0 = all cores, as slm.n_threads = 0")
    args = parser.parse_args(argv)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    if unknown := sorted(set(formats) - set(FTYPES)):
        print(f"unknown format(s) {unknown}; use some of {sorted(FTYPES)}", file=sys.stderr)
        return 2
    source = bundled_slm_path()
    print(f"model {source.name}; prompt {args.prompt_tokens} tokens, decode {DECODE_TOKENS} tokens, best of 3")
    print("| format | file MB | prefill tok/s | decode tok/s | prefill of 450 tokens, s |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="dgrag-slm-") as tmp:
        for fmt in formats:
            path = convert(source, fmt, Path(tmp))
            prefill, decode = measure(path, args.prompt_tokens, args.threads)
            size = path.stat().st_size / 1e6
            print(f"| {fmt} | {size:.0f} | {prefill:.0f} | {decode:.0f} | {450 / prefill:.1f} |", flush=True)
            if path != source:
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
