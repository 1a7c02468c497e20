"""Each ablation is a setting of the product's own config that switches its part off, for the edges or the cloud of
the network started for it."""

from __future__ import annotations

import pytest

from shared.config import CloudConfig, EdgeConfig, load_config
from shared.core.errors import DgragError
from simulation.ablation_settings import ABLATIONS, ablations_of

DEFAULT_EDGE = load_config(EdgeConfig, None, environ={})
DEFAULT_CLOUD = load_config(CloudConfig, None, environ={})
SWITCHED = {
    "cd": lambda e, c: not e.gate.refusal_detection and DEFAULT_EDGE.gate.refusal_detection,
    "se": lambda e, c: not e.gate.similarity_evaluation and DEFAULT_EDGE.gate.similarity_evaluation,
    "bq": lambda e, c: e.answer.n_answers == 1 < DEFAULT_EDGE.answer.n_answers,
    "gc": lambda e, c: not e.gate.check_other_edges and DEFAULT_EDGE.gate.check_other_edges,
    "sp": lambda e, c: c.query.sparse_weight == 0 < DEFAULT_CLOUD.query.sparse_weight,
    "pr": lambda e, c: c.query.probe_shortlist == 0 < DEFAULT_CLOUD.query.probe_shortlist,
}


@pytest.mark.parametrize("ablation", ABLATIONS, ids=lambda a: a.code)
def test_each_ablation_switches_its_part_off_by_config(ablation) -> None:  # type: ignore[no-untyped-def]
    edge = load_config(EdgeConfig, None, environ=dict(ablation.edge))
    cloud = load_config(CloudConfig, None, environ=dict(ablation.cloud))
    assert SWITCHED[ablation.code](edge, cloud)
    assert bool(ablation.edge) != bool(ablation.cloud), "a part is either the edges' or the cloud's"
    assert ablation.mode == f"dgrag-{ablation.code}"


def test_every_ablation_is_checked_and_bad_codes_are_refused() -> None:
    assert set(SWITCHED) == {a.code for a in ABLATIONS}
    assert [a.code for a in ablations_of([" pr", "cd", ""])] == ["pr", "cd"]
    with pytest.raises(DgragError, match=r"unknown ablation.s. zz; use some of cd, se"):
        ablations_of(["zz"])
