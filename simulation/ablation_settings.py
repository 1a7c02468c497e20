"""The ablations a simulation runs: DGRAG with one part switched off, to measure what that part adds.

An ablation is a setting of the product's own config, given to the edges or the cloud of a network started for
it alone (``dgrag sim run --ablate``): no ablation travels in the protocol, and the product has no lab switch.
Its rows carry the mode ``dgrag-<code>``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from shared.core.errors import DgragError


@dataclass(frozen=True)
class Ablation:
    """One part of DGRAG switched off: the DGRAG__ settings of its edges and of its cloud."""

    code: str
    what: str
    edge: Mapping[str, str] = field(default_factory=dict)
    cloud: Mapping[str, str] = field(default_factory=dict)

    @property
    def mode(self) -> str:
        """The mode name of its rows."""
        return ablation_mode(self.code)


ABLATIONS: tuple[Ablation, ...] = (
    # the paper's
    Ablation("cd", "no confidence (refusal) detection", edge={"DGRAG__GATE__REFUSAL_DETECTION": "false"}),
    Ablation("se", "no similarity evaluation", edge={"DGRAG__GATE__SIMILARITY_EVALUATION": "false"}),
    Ablation("bq", "one answer instead of a sampled batch", edge={"DGRAG__ANSWER__N_ANSWERS": "1"}),
    # this project's routing parts
    Ablation("sp", "no sparse summary matching in stage 1", cloud={"DGRAG__QUERY__SPARSE_WEIGHT": "0"}),
    Ablation("pr", "no probes: the top-k edges by summaries are asked", cloud={"DGRAG__QUERY__PROBE_SHORTLIST": "0"}),
    Ablation(
        "gc", "the gate does not ask whether another edge is stronger", edge={"DGRAG__GATE__CHECK_OTHER_EDGES": "false"}
    ),
)
CODES = tuple(a.code for a in ABLATIONS)


def ablation_mode(code: str) -> str:
    """The mode name of DGRAG's rows with the part ``code`` switched off."""
    return f"dgrag-{code}"


def ablations_of(codes: Iterable[str]) -> tuple[Ablation, ...]:
    """The ablations named by ``codes``, in their order; refuses an unknown or repeated code, naming the known."""
    known = {a.code: a for a in ABLATIONS}
    wanted = [c.strip() for c in codes if c.strip()]
    if unknown := sorted({c for c in wanted if c not in known}):
        raise DgragError(f"unknown ablation(s) {', '.join(unknown)}; use some of {', '.join(CODES)}")
    if twice := sorted({c for c in wanted if wanted.count(c) > 1}):
        raise DgragError(f"--ablate names {', '.join(twice)} more than once")
    return tuple(known[c] for c in wanted)
