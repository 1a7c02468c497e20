"""The words every part of dgrag uses for the same things, defined once: query modes, limits.

Edge query modes (what ``dgrag edge query --mode`` and the edge API take):

- ``local``: DGRAG's local path: graph retrieval, n sampled answers and the gate, no cloud (LocalRAG);
- ``full``: the local path, then the cloud when the gate escalates (DGRAG).

Simulation modes name the systems compared: ``naive`` (the NaiveRAG baseline: chunk vectors and one answer, run by
the simulation itself on the edges' indexes), ``local`` as above, ``dgrag`` (the edge's ``full`` mode),
``central`` (every document in one store, asked in ``local`` mode: the upper bound of retrieval) and ``oracle``
(each question read from its gold evidence documents by the edge's readers: what reading alone loses).
"""

from __future__ import annotations

import re
from typing import Literal

EdgeMode = Literal["local", "full"]
EDGE_MODES: tuple[EdgeMode, ...] = ("local", "full")


def edge_mode(text: str) -> EdgeMode:
    """``text`` as a query mode, read once where a request arrives; ValueError naming the modes otherwise."""
    for mode in EDGE_MODES:
        if text == mode:
            return mode
    raise ValueError(f"unknown query mode {text!r}; use one of {', '.join(EDGE_MODES)}")


MAX_QUESTION_CHARS = 4000
"""The longest question the edges and the cloud accept."""

AnswerUse = Literal["quote", "paraphrase", "ids_only"]
ANSWER_USES: tuple[AnswerUse, ...] = ("quote", "paraphrase", "ids_only")
DEFAULT_ANSWER_USE: AnswerUse = "paraphrase"
"""What answers may carry of an edge's texts unless its owner says otherwise (privacy.answers)."""
"""What answers to other participants may carry of an edge's texts (its ``privacy.answers``): quote (word for
word), paraphrase (the content, with no copied run of words), ids_only (which of its sources match, nothing of
their text)."""

_EDGE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def valid_edge_id(edge_id: str) -> bool:
    """Ids (of edges, apps, operators) are short and safe in file names and summary ids (letters, digits,
    ``._-``)."""
    return bool(_EDGE_ID.match(edge_id))
