"""What an answer leaving the cloud may carry of the edges' texts, by each edge's ``privacy.answers``.

- ``quote``: the edge's texts may be repeated word for word to any asker (and an app gets them as context);
- ``paraphrase`` (the default): its texts are read, but no run of ``query.copy_words`` words, near-copy or
  whole short sentence of them leaves in an answer, and askers get its sources by id only;
- ``ids_only``: its texts are not read for other participants at all; askers learn which of its sources
  matched.

An edge's own texts are always its own to receive. The asker is who the credential says, never a field of
the request (an app naming an edge as ``asked_at`` gets what any app gets).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from cloud_server.answering.context_merge import MergedContext
from shared.core.knowledge import CloudAnswer, ContextChunk, EdgeKnowledge, ProbeScores
from shared.core.text import content_words
from shared.core.verbatim import CopyIndex, redact, tokens, words

WITHHELD = (
    "The answer would repeat text that its sources' owners do not let the cloud pass on; its sources are listed by id."
)
SHORT_ONLY = (
    "{short} (the cloud's fuller answer would repeat text its sources' owners do not let it pass on; its sources are"
    " listed by id)"
)
LEFT_OUT = " (Parts of this answer are left out: they would repeat text its sources' owners do not let it pass on.)"
"""The one fixed note an answer with copied words removed carries: neither where nor how many (the count and the
places would tell an asker which of its guesses a document holds)."""
MOSTLY = 0.5
"""An answer with more than this share of its words removed is replaced: by its short answer when that copies
nothing (:data:`SHORT_ONLY`), else by :data:`WITHHELD`."""
WHOLE_COPIES = frozenset({"filler", "encoded"})
"""Copies that make the whole text the copy (a filler between the words, an encoding): nothing of it is kept."""


@dataclass(frozen=True)
class Readers:
    """Who receives an answer, and what each edge that replied lets it receive."""

    owner: str
    """The asking edge (its own texts are its own), or "" for an app or operator."""
    uses: Mapping[str, str]
    """Each replying edge's ``privacy.answers``."""

    @classmethod
    def of(cls, owner: str, replies: Sequence[EdgeKnowledge]) -> Readers:
        return cls(owner, {k.edge_id: k.answers for k in replies})

    def may_quote(self, edge_id: str) -> bool:
        return edge_id == self.owner or self.uses.get(edge_id, "paraphrase") == "quote"

    def may_read(self, edge_id: str) -> bool:
        return edge_id == self.owner or self.uses.get(edge_id, "paraphrase") != "ids_only"

    def all_quotable(self, merged: MergedContext) -> bool:
        """Whether every text of ``merged`` may be quoted (then the answer may show a supporting sentence)."""
        return all(self.may_quote(e) for e in merged.edges)


@dataclass(frozen=True)
class Guarded:
    text: str
    short: str
    removed_words: int = 0
    replaced: bool = False


def readable(replies: Sequence[EdgeKnowledge], readers: Readers) -> tuple[list[EdgeKnowledge], list[EdgeKnowledge]]:
    """The replies the cloud LLM may read for ``readers``, and those it may only cite (``ids_only``)."""
    return [k for k in replies if readers.may_read(k.edge_id)], [k for k in replies if not readers.may_read(k.edge_id)]


def protected_texts(replies: Sequence[EdgeKnowledge], readers: Readers) -> list[str]:
    """Every text an answer for ``readers`` may not repeat: the chunks and descriptions of the edges whose
    policy does not let it."""
    out: list[str] = []
    for k in replies:
        if not readers.may_quote(k.edge_id):
            out += [c.text for c in k.chunks]
            out += [e.description for e in k.entities if e.description]
            out += [r.description for r in k.relations if r.description]
    return out


def guard_answer(
    question: str, text: str, short: str, protected: Sequence[str], n: int, sentence: int, whole: bool = False
) -> Guarded:
    """``text`` and ``short`` with every copy of ``protected`` removed (runs of ``n`` words, near-copies and
    whole sentences of ``sentence`` words or more) unless the question itself holds it; mostly removed: the
    whole answer is replaced by the short answer alone, or by :data:`WITHHELD` when that copies too. ``whole``:
    the short answer is a span that is right only whole (a version, licence or command), so one that copies is
    withheld, never cut to a part."""
    index = CopyIndex(protected, n, sentence)
    if index.empty:
        return Guarded(text, short)
    shown, removed = redact(text, index.copies(text, given=question), mark="")
    kept_short, short_removed = redact(short, index.copies(short, given=question))
    if removed == 0 and short_removed == 0:
        return Guarded(text, short)
    if short_removed:
        kept_short = "" if whole else within_copy_limit(question, short, index)
        if not kept_short:
            return Guarded(WITHHELD, "", removed, replaced=True)
    else:
        kept_short = short.strip()
    if short_removed or removed > MOSTLY * max(len(words(text)), 1):
        if kept_short:  # the short answer copies nothing (or was cut to a part that does not)
            return Guarded(SHORT_ONLY.format(short=kept_short), kept_short, removed, replaced=True)
        return Guarded(WITHHELD, "", removed, replaced=True)
    return Guarded(" ".join(shown.split()) + LEFT_OUT, kept_short, removed)


def within_copy_limit(question: str, short: str, index: CopyIndex) -> str:
    """The part of a short answer that copies a protected text which copies nothing: the run of fewer than the
    copy limit's words holding the most content words the question does not (then the longest, then the first),
    or "" when every such run copies or the whole answer is a copy in disguise (a filler, an encoding). An
    answer phrase the policy allows survives a model that answered with the whole line it found."""
    found = index.copies(short, given=question)
    if any(c.kind in WHOLE_COPIES for c in found):
        return ""
    toks = tokens(short)
    asked = set(content_words(question))
    new = [w.word not in asked and bool(content_words(w.word)) for w in toks]
    windows = [
        (i, j)
        for i in range(len(toks))
        for j in range(i, min(len(toks), i + index.n - 1))
        if new[i] and new[j]  # a run starts and ends on a word that tells something
    ]
    windows.sort(key=lambda w: (-sum(new[w[0] : w[1] + 1]), -(w[1] - w[0]), w[0]))
    for i, j in windows:
        part = short[toks[i].start : toks[j].end]
        if not index.copies(part, given=question):
            return part
    return ""


def shown_context(merged: MergedContext, cited: Sequence[EdgeKnowledge], readers: Readers) -> list[ContextChunk]:
    """The context as the asker receives it: for an app, the texts it may be quoted; every other source (and
    every source for an edge, which holds its own texts already) by id only, with its score and size where the
    asker may be quoted its text. A source that may not be quoted carries no number: a chunk's score against
    questions an asker chooses would let it test guesses about the text (attribute inference) or rebuild its
    embedding."""
    shown = [
        c if not readers.owner and readers.may_quote(c.edge_id) else _id_only(c, readers.may_quote(c.edge_id))
        for c in merged.chunks
    ]
    return shown + [_id_only(ContextChunk(k.edge_id, c), False) for k in cited for c in k.chunks]


TIMING_BUCKET_S = 0.5
"""An asker who may not see the routing gets the cloud's total time rounded up to a multiple of this."""


def as_asker_sees(answer: CloudAnswer, unnamed: Collection[str], routing_shown: bool = False) -> CloudAnswer:
    """``answer`` as an asker other than an operator receives it: no count of withheld words, no mention of an
    ``unnamed`` edge (that it matched says it knows), and no routing unless ``routing_shown``
    (a lab setting of build_cloud): no summaries matched, edges probed, asked, replied or failed, no reply sizes, the
    total time alone in TIMING_BUCKET_S steps. Each of these tells whether an edge's documents match the asker's
    words, and leaving out only some edges' would show by what is missing. For the same reason a declined answer
    comes without sources: which edges' lines it would show depends on the routing (a source is shown as the
    provenance of an answer given). With the routing shown, the probed edges come in their shortlist order without
    their scores."""
    context = [c for c in answer.context if c.edge_id not in unnamed]
    if not routing_shown:
        if answer.reader == "declined" or not answer.answer:
            context = []
        total = math.ceil(answer.timings.get("total", 0.0) / TIMING_BUCKET_S) * TIMING_BUCKET_S
        return dataclasses.replace(
            answer,
            withheld_words=0,
            summaries=[],
            probes=[],
            edges_asked=[],
            edges_replied=[],
            edges_failed=[],
            bytes_received=0,
            probe_bytes=0,
            timings={"total": total},
            context=context,
        )

    def named(edges: list[str]) -> list[str]:
        return [e for e in edges if e not in unnamed]

    probes = [
        ProbeScores(p.edge_id, seconds=p.seconds, error=p.error) for p in answer.probes if p.edge_id not in unnamed
    ]
    return dataclasses.replace(
        answer,
        withheld_words=0,
        probes=probes,
        summaries=[s for s in answer.summaries if s.edge_id not in unnamed],
        edges_asked=named(answer.edges_asked),
        edges_replied=named(answer.edges_replied),
        edges_failed=named(answer.edges_failed),
        context=context,
    )


def _id_only(c: ContextChunk, measured: bool) -> ContextChunk:
    """``c`` without its text, and without its score and size unless ``measured``."""
    if measured:
        return ContextChunk(c.edge_id, dataclasses.replace(c.chunk, text=""))
    return ContextChunk(c.edge_id, dataclasses.replace(c.chunk, text="", score=0.0, tokens=0))
