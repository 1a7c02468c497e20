"""The names and keywords of a question, model-free: what an edge's retrieval embeds and matches by name (the
names are the texts whose vectors travel with a question, see shared/core/query_vectors.py)."""

from __future__ import annotations

import re

from shared.core.candidates import find_candidates
from shared.core.text import normalise_name, occurs_in

_WORD = re.compile(r"[A-Za-z0-9][\w'-]*")
_QUOTED = re.compile(r"(?<!\w)[\"'‘“]([^\"'’”]{3,60})[\"'’”](?!\w)")
_COMMON = frozenset(
    """
    what which who whom whose when where why how does did do is are was were the and that this these those with
    from about article articles report reported according between both after before while their there have has
    had been being into than then them they would could should also more most same other such only over under
    published news suggest mentioned mention yes
    """.split()
)


def question_terms(question: str) -> tuple[list[str], list[str]]:
    """Model-free (names, keywords) of a question: names are capitalised spans and quoted titles."""
    names = [c.name for c in find_candidates(question, limit=12)]
    names += [m.group(1).strip() for m in _QUOTED.finditer(question) if m.group(1).strip() not in names]
    by_key: dict[str, str] = {}
    for name in names:
        by_key.setdefault(normalise_name(name), name)
    names = list(by_key.values())
    words = [w.strip("'’") for w in _WORD.findall(question) if len(w) >= 4 and w.casefold() not in _COMMON]
    return names, list(dict.fromkeys(names + words))


def term_share(terms: list[str], texts: list[str]) -> float:
    """The largest share of ``terms`` (whole words, any case) that one of ``texts`` contains; 0 without terms.
    An edge's probe reports it as its term coverage; the cloud measures it again on the texts the edge returns."""
    wanted = list(dict.fromkeys(t.casefold() for t in terms if t.strip()))
    if not wanted:
        return 0.0
    return max((sum(occurs_in(t, text) for t in wanted) / len(wanted) for text in texts), default=0.0)
