"""The parts of DGRAG switched off for one question, as one value parsed once from their codes
(:data:`shared.core.vocabulary.ABLATIONS` and :data:`~shared.core.vocabulary.ROUTING_ABLATIONS`): what the edge's query
path and the cloud's routing read, instead of checking codes in a set."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from shared.core.errors import InvalidRequestError
from shared.core.vocabulary import ALL_ABLATIONS, CLOUD_ROUTING_ABLATIONS


@dataclass(frozen=True)
class Ablations:
    """A valid set of ablation codes (an unknown code is refused when the value is made)."""

    codes: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = self.codes - set(ALL_ABLATIONS)
        if unknown:
            raise InvalidRequestError(
                f"unknown ablation(s) {', '.join(sorted(unknown))}; use some of {', '.join(ALL_ABLATIONS)}"
            )

    @classmethod
    def of(cls, codes: Iterable[str]) -> Ablations:
        """The ablations named by ``codes`` (blank codes ignored)."""
        return cls(frozenset(c.strip() for c in codes if c.strip()))

    @classmethod
    def routing(cls, codes: Iterable[str]) -> Ablations:
        """The cloud's routing parts named by ``codes``; any other code is refused."""
        found = cls.of(codes)
        others = found.codes - set(CLOUD_ROUTING_ABLATIONS)
        if others:
            known = ", ".join(CLOUD_ROUTING_ABLATIONS)
            raise InvalidRequestError(f"unknown routing ablation(s) {', '.join(sorted(others))}; use some of {known}")
        return found

    def __bool__(self) -> bool:
        return bool(self.codes)

    def __iter__(self) -> Iterator[str]:
        """The codes, sorted (what goes on the wire)."""
        return iter(sorted(self.codes))

    @property
    def cloud_routing(self) -> Ablations:
        """The part the cloud carries out (``sp``, ``pr``, ``rm``)."""
        return Ablations(self.codes & set(CLOUD_ROUTING_ABLATIONS))

    # the paper's ablations, carried out by the edge
    @property
    def no_refusal_detection(self) -> bool:
        return "cd" in self.codes

    @property
    def no_similarity_evaluation(self) -> bool:
        return "se" in self.codes

    @property
    def one_answer(self) -> bool:
        """No batched (sampled) answers: one answer per question."""
        return "bq" in self.codes

    @property
    def no_graph(self) -> bool:
        """Chunk vectors only, no knowledge graph."""
        return "kg" in self.codes

    # this project's routing parts
    @property
    def no_sparse_matching(self) -> bool:
        return "sp" in self.codes

    @property
    def no_probes(self) -> bool:
        return "pr" in self.codes

    @property
    def no_routing_memory(self) -> bool:
        return "rm" in self.codes

    @property
    def no_gate_check(self) -> bool:
        """The asking edge does not ask the cloud whether another edge is stronger."""
        return "gc" in self.codes


NONE = Ablations()
"""Nothing switched off."""
