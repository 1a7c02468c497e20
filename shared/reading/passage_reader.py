"""The one reader, for every question on every side: the model reads the retrieved passages whole and answers
with the passages' own words or a verdict.

The passages are read whole, so the sentence holding an answer is never cut out of what the model sees. The model
is asked for the short answer alone (one instruction for every question, as a plain NaiveRAG asks it: the model
itself answers Yes or No where the question wants a verdict, and may say the context does not tell). What it
writes is then checked without a model:

- a **span**: its words occur in a passage, and the first passage (in retrieval order) holding them is cited with
  the sentence that holds them;
- a **verdict**: Yes or No to a yes/no question; the sentence sharing most of the question's words is cited (a
  model that copies the sentence first and then writes "Answer: Yes" has that sentence cited where a passage
  holds it);
- **unsupported**: neither; no short answer is shown, only what the model wrote and that no source holds it;
- a **decline**: the model says the passages do not answer.

The model's own probability of what it wrote (the product of its tokens' probabilities, read off the same pass
that wrote it) is carried to the confidence (shared.reading.confidence); with several samples, so is their
agreement.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core import prompts
from shared.core.model_api import Completion, GenerationRequest
from shared.core.text import clean_text, occurs_in, sentences
from shared.reading.answer_format import Sampling, declares_missing
from shared.reading.span_reader import Found, Passage, best_sentences

MAX_SHORT_WORDS = 24
"""A short answer is cut at this many words: the instruction asks for a span, not an essay."""
_LEAD = re.compile(r"^\s*(?:(?:the\s+)?(?:short\s+)?answer\s*(?:is)?\s*[:\-]\s*)", re.IGNORECASE)
_CITATION = re.compile(r"\s*\[\d{1,3}(?::[^\]]*)?\]")
_EDGE_MARKS = "\"'`“”‘’*"
_VERDICT = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)
_STATED_VERDICT = re.compile(r"\banswer\s*[:\-]\s*\W*(yes|no)\b", re.IGNORECASE)


DECLINED_KIND = "declined"


@dataclass(frozen=True)
class Said:
    """What the model wrote for one question, read without a model."""

    short: str
    """The answer alone: a span, "Yes"/"No", or "" for a decline."""
    kind: str
    """span, verdict, unsupported or declined."""
    found: Found | None
    """The sentence of a passage that holds it (for a verdict: the sentence the model copied), None where none does."""
    probability: float
    """The model's probability of what it wrote (for a verdict: of its Yes or No token; 0: not given)."""
    nearest: Found | None = None
    """For a verdict whose copied sentence no passage holds: the sentence sharing most of the question's words."""

    @property
    def cited(self) -> Found | None:
        """The sentence shown beside the answer."""
        return self.found or self.nearest


DECLINED = Said("", DECLINED_KIND, None, 0.0)
"""What a model that gave no usable answer said."""


def passage_prompt(question: str, passages: Sequence[Passage]) -> str:
    """The user message: the passages whole, the question, and the instruction to give the short answer alone.
    The same for every question: the model chooses between words of the passages and Yes or No."""
    listed = "\n\n".join(p.text.strip() for p in passages) or "(nothing was found)"
    return prompts.ANSWER_PASSAGES.format(passages=listed, question=question.strip())


def passage_request(question: str, passages: Sequence[Passage], how: Sampling) -> GenerationRequest:
    """The request reading ``passages`` for ``question``: one greedy answer, or ``how.n`` sampled ones."""
    return GenerationRequest(
        prompt=passage_prompt(question, passages),
        n=how.n,
        max_tokens=how.max_tokens,
        temperature=how.temperature if how.n > 1 else 0.0,
        seed=how.seed,
        top_p=how.top_p,
        top_k=how.top_k,
        min_p=how.min_p,
        repeat_penalty=how.repeat_penalty,
    )


def short_of(text: str) -> str:
    """The answer alone from a completion: its first line, without a lead ("Answer:"), citations, quotes or a
    closing full stop, cut to MAX_SHORT_WORDS."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    first = _CITATION.sub("", _LEAD.sub("", lines[0] if lines else ""))
    first = clean_text(first).strip(_EDGE_MARKS + " ").rstrip(".").strip(_EDGE_MARKS + " ")
    words = first.split(" ")
    return first if len(words) <= MAX_SHORT_WORDS else " ".join(words[:MAX_SHORT_WORDS])


def read_said(question: str, text: str, passages: Sequence[Passage], probability: float) -> Said:
    """What one completion ``text`` says for ``question`` (``probability``: the model's probability of the whole
    text). An answer that leads with Yes or No is a verdict, whatever the question looks like."""
    if (said := _verdict(question, text, passages, probability)) is not None:
        return said
    short = short_of(text)
    if not short or declares_missing(short):
        return Said("", DECLINED_KIND, None, probability)
    found = locate(short, passages)
    return Said(short, "span" if found else "unsupported", found, probability)


def _verdict(question: str, text: str, passages: Sequence[Passage], probability: float) -> Said | None:
    """A verdict: a leading Yes or No, or "Answer: Yes" after a sentence the model copied; the sentence cited is
    the one copied where a passage holds it (``named``), else the one sharing most of the question's words."""
    stated = list(_STATED_VERDICT.finditer(text))
    if stated:
        verdict, quote = stated[-1].group(1), text[: stated[-1].start()]
    elif (lead := _VERDICT.match(short_of(text))) is not None:
        verdict, quote = lead.group(1), ""
    else:
        return None
    copied = short_of(quote)
    found = locate(copied, passages) if copied else None
    if found is None:
        cited = best_sentences(f"{question} {copied}", passages, limit=1)
        return Said(verdict.capitalize(), "verdict", None, probability, cited[0] if cited else None)
    return Said(verdict.capitalize(), "verdict", found, probability)


def locate(short: str, passages: Sequence[Passage]) -> Found | None:
    """The first passage's sentence holding ``short`` as whole words (the passage, where no one sentence does)."""
    for passage in passages:
        if not occurs_in(short, passage.text):
            continue
        held = [s for s in sentences(passage.text) if occurs_in(short, s)]
        return Found(short, held[0] if held else passage.text, passage, 1.0)
    return None


def said_all(question: str, completion: Completion, passages: Sequence[Passage]) -> list[Said]:
    """Every completion of ``completion`` as read (its probability 0 where the backend gives none)."""
    every = []
    for i, text in enumerate(completion.texts):
        said = read_said(question, text, passages, completion.probability(i) or 0.0)
        if said.kind == "verdict":  # a verdict's probability is its Yes or No token's
            at = _verdict_offset(text)
            said = dataclasses.replace(said, probability=completion.probability_at(i, at) or 0.0)
        every.append(said)
    return every


def _verdict_offset(text: str) -> int:
    """Where the verdict's word begins in ``text``."""
    stated = list(_STATED_VERDICT.finditer(text))
    if stated:
        return stated[-1].start(1)
    lead = re.match(r"^\W*", text)
    return lead.end() if lead else 0


def agreement(shown: Said, every: Sequence[Said]) -> float:
    """The share of the samples that gave the shown answer (their short answers alike, case and spacing aside)."""
    if not every:
        return 0.0
    key = shown.short.casefold()
    return sum(1 for s in every if s.short.casefold() == key) / len(every)
