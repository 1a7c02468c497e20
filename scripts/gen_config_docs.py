"""Write docs/configuration.md from the config dataclasses (shared/config/): every setting of the edge's and the
cloud's files, its default and what it does, with the ones a deployer sets and the fitted ones marked.

    python scripts/gen_config_docs.py           # rewrite docs/configuration.md
    python scripts/gen_config_docs.py --check   # exit 1 when it is not current (CI)

A setting's text is the docstring under its field in the source, so the docs cannot drift from the code.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import itertools
import sys
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared.config import CloudConfig, EdgeConfig  # noqa: E402

OUT = ROOT / "docs" / "configuration.md"
EDGE_DEPLOYER = (
    "edge_id cloud.address cloud.token_file cloud.tls_ca cloud.tls_cert cloud.tls_key privacy.level privacy.answers "
    "server.ingest_roots slm.backend slm.base_url slm.model"
)
CLOUD_DEPLOYER = "host port tokens_file tls_cert tls_key tls_client_ca llm.backend llm.base_url llm.model"
DEPLOYER = {"edge": set(EDGE_DEPLOYER.split()), "cloud": set(CLOUD_DEPLOYER.split())}
"""What a deployer sets for each device; everything else has a working default."""
FITTED_WORD = "fitted"

INTRO = """# Configuration

Each side reads one TOML file (`--config`) whose tables mirror the dataclasses in `shared/config/`;
`DGRAG__SECTION__KEY` environment variables override it (e.g. `DGRAG__CLOUD__ADDRESS`,
`DGRAG__PRIVACY__LEVEL`). Every setting has a default. **Set by a deployer** marks the few a deployment
names for each device; **fitted** marks defaults chosen by a benchmark on the dev questions (the setting's
text says which). This file is generated from the code (`python scripts/gen_config_docs.py`; CI checks it is
current).

A stronger model needs no code change: `[slm] backend = "openai"` with `base_url` and `model` (any
OpenAI-compatible endpoint: vLLM, Ollama, llama.cpp's server), or `backend = "llama_cpp"` with `model_path`
(a GGUF file); the cloud's `[llm]` is the same.
"""


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of ``cls`` (and of its dataclass bases), from its source."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        module = sys.modules[klass.__module__]
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == klass.__name__)
        body = node.body
        for here, after in itertools.pairwise(body):
            if not (isinstance(here, ast.AnnAssign) and isinstance(here.target, ast.Name)):
                continue
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                docs[here.target.id] = " ".join(str(after.value.value).split())
    return docs


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple | list):
        return "`[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in value) + "]`"
    return f"`{value}`"


def tables(cls: type, prefix: str, role: str) -> list[str]:
    """The markdown of ``cls``'s settings (its scalar fields) and then of each nested table."""
    hints = typing.get_type_hints(cls)
    docs = field_docs(cls)
    rows, nested = [], []
    for f in dataclasses.fields(cls):
        key = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(hints[f.name]):
            nested.append((hints[f.name], f"{key}.", docs.get(f.name, "")))
            continue
        marks = []
        if key in DEPLOYER[role]:
            marks.append("**set by a deployer**")
        if FITTED_WORD in docs.get(f.name, "").lower():
            marks.append("**fitted**")
        text = docs.get(f.name, "").replace("|", "\\|")
        rows.append(f"| `{f.name}` | {_shown(_default(f))} | {' '.join([*marks, text]).strip()} |")
    title = f"[{prefix.rstrip('.')}]" if prefix else "top level"
    out = [f"### {title}", "", "| setting | default | what it does |", "|---|---|---|", *rows, ""] if rows else []
    for child, child_prefix, doc in nested:
        section = tables(child, child_prefix, role)
        if doc and section:
            section[2:2] = [doc, ""]
        out += section
    return out


def render() -> str:
    parts = [INTRO, "## The edge (`dgrag edge ... --config`)", "", *tables(EdgeConfig, "", "edge")]
    parts += ["## The cloud (`dgrag cloud serve --config`)", "", *tables(CloudConfig, "", "cloud")]
    return "\n".join(parts).rstrip() + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="fail when docs/configuration.md is not current")
    args = p.parse_args()
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"gen_config_docs: {OUT.relative_to(ROOT)} is stale; run python scripts/gen_config_docs.py")
            return 1
        print(f"gen_config_docs: {OUT.relative_to(ROOT)} is current")
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"gen_config_docs: wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
