"""The answer a person is shown, from the model's samples or a model-free reader, with its confidence.

:func:`compose` turns the model's sampled answers into the shown answer: it leads with the short answer (the
samples' vote, or the model-free reader's pick where that reads better: see ``AnswerConfig``), then one
supporting sentence of the evidence with its source (shared.reading.answer). It computes and applies the answer's
confidence; a two-way verdict below ``withhold_below`` is withheld (shared.reading.claims).
:func:`unsupported` is the model-free grounding check: a sample whose content words and numbers are mostly not in
the evidence is not supported by it.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from shared.core.sureness import WITHHOLD_BELOW
from shared.core.text import content_words
from shared.reading.answer import Answer, cited, with_support
from shared.reading.answer_format import MISSING, declares_missing
from shared.reading.claims import unsettled
from shared.reading.confidence import PRIOR, Calibration, evidence_of, lead_of
from shared.reading.fact_reader import READER as FACT_READER
from shared.reading.fact_reader import read_fact
from shared.reading.phrases import agreed_phrase, read_utterance, who_said
from shared.reading.plan import Reading, Shape
from shared.reading.reader_profile import ReaderProfile
from shared.reading.span_reader import Found, Passage, best_sentences, find_date, find_number
from shared.reading.temporal import read_times

SHORT_WORDS = 30
"""A shown short answer (generated or extracted) is cut to this many words: a long extract must not win by
containing everything."""
DEFAULT_READERS = ReaderProfile()
TWO_WAY = (Shape.YES_NO, Shape.CHOICE)
"""Shapes whose verdict is one of two: one whose own confidence is below WITHHOLD_BELOW (by default) is not shown."""
SUPPORT_SHARE = 0.5
"""A sample is supported when at least this share of its content words (and every number) is in the evidence."""
_CITATION = re.compile(r"\[(\d{1,3})\]")
_NUMBERS = re.compile(r"\d[\d,.:]*")
_WORD = re.compile(r"[a-z0-9]+")


def compose(
    reading: Reading,
    answers: Sequence[str],
    best: int = 0,
    readers: ReaderProfile = DEFAULT_READERS,
    quote: bool = True,
    calibration: Calibration = PRIOR,
    withhold_below: float = WITHHOLD_BELOW,
    shares: Mapping[str, float] | None = None,
) -> Answer:
    """The shown answer from the rendered sampled ``answers`` (``best``: the sample the gate chose), each shape read
    by the reader ``readers`` names for it (see shared.reading.reader_profile), with its confidence under
    ``calibration`` (``shares``: a single choice's options with the model's probability of each, see
    shared.reading.confidence.evidence_of). ``quote`` False (the reader may not receive the evidence's text, e.g.
    another edge's): no sentence of the evidence is shown, only its source, and open questions get the samples'
    short phrase or none.
    A two-way verdict (yes/no, one of two options) whose own confidence is below ``withhold_below`` is withheld:
    can't tell, and what bears on each of the question's claims (shared.reading.claims)."""
    shown = _read(reading, answers, best, readers, quote)
    if shown.reader == "declined":
        return shown
    texts = [p.text for p in reading.passages]
    shape = reading.shape.shape.value
    names = reading.entities if reading.shape.shape == Shape.ENTITY else []
    first = names[0].short if names else ""
    lead = lead_of([f.score for f in names[:2]])
    evidence = evidence_of(reading.question, shape, shown.reader, shown.short, texts, answers, shares, first, lead)
    confidence = calibration.confidence(evidence)
    if reading.shape.shape in TWO_WAY and confidence.probability < withhold_below:
        return unsettled(reading, quote, evidence, shown.short)
    return dataclasses.replace(shown, confidence=confidence, evidence=evidence)


def _read(reading: Reading, answers: Sequence[str], best: int, readers: ReaderProfile, quote: bool) -> Answer:
    if not quote:
        shown = _read(reading, answers, best, dataclasses.replace(readers, open="model"), True)
        if shown.reader == "declined":
            return shown
        return cited(shown.short, shown.support, shown.reader)
    if (special := _special(reading, readers)) is not None:
        return special
    shape = reading.shape.shape
    extractive = readers.reader(shape) == "extractive"
    if reading.options and shape in (Shape.YES_NO, Shape.CHOICE):
        return _voted(reading, answers)
    if shape == Shape.ENTITY and reading.entities:
        if extractive:
            top = reading.entities[0]
            return with_support(top.short, top, "extractive")
        return _voted(reading, answers)
    if extractive and shape in (Shape.DATE, Shape.NUMBER):
        finder = find_date if shape == Shape.DATE else find_number
        if (found := finder(reading.question, reading.passages)) is not None:
            return with_support(found.short, found, "extractive")
    if shape == Shape.OPEN and not extractive:
        return _phrase(reading, answers)
    return _open(reading, answers, best, extractive)


def _special(reading: Reading, readers: ReaderProfile) -> Answer | None:
    """The model-free readers of particular questions, which answer before the shape's reader where they can: a
    version, licence or command (shared.reading.fact_reader), the order of two dated events
    (shared.reading.temporal), a speaker's own line or who said a line (shared.reading.phrases)."""
    shape, question, passages = reading.shape, reading.question, reading.passages
    found: Found | None = None
    if reading.fact is not None:
        # a version, a licence or a command is the span that states it, or nothing: never a name or a paraphrase
        fact = read_fact(reading.fact, question, passages)
        return with_support(fact.short, fact, FACT_READER) if fact else Answer(MISSING, MISSING, "declined")
    if shape.shape == Shape.YES_NO and readers.dates:
        found, reader = read_times(question, passages), "dates"
    elif shape.shape == Shape.ENTITY and shape.wants_person and readers.speakers:
        found, reader = who_said(question, passages), "speaker"
    elif shape.shape == Shape.OPEN and readers.speakers:
        found, reader = read_utterance(question, passages), "speaker"
    return with_support(found.short, found, reader) if found is not None else None


def _voted(reading: Reading, answers: Sequence[str]) -> Answer:
    """The option most samples chose (ties: the one an earlier sample chose); no prior for any option."""
    votes: Counter[str] = Counter()
    first: dict[str, int] = {}
    declined = 0
    for i, answer in enumerate(answers):
        chosen = _chosen(answer, reading.options)
        if chosen is None:
            declined += declares_missing(answer)
            continue
        votes[chosen] += 1
        first.setdefault(chosen, i)
    if not votes or declined * 2 > len(answers):
        return Answer(MISSING, MISSING, "declined")
    winner = max(votes, key=lambda o: (votes[o], -first[o]))
    support = _support(reading, winner)
    return with_support(winner[:1].upper() + winner[1:], support, "vote")


def _phrase(reading: Reading, answers: Sequence[str]) -> Answer:
    """An open question's short phrase, agreed by the samples that the evidence supports."""
    grounded = [a for a in answers if not declares_missing(a) and not unsupported(a, reading.passages)]
    phrase = agreed_phrase(reading.question, grounded)
    if not phrase:
        return Answer(MISSING, MISSING, "declined")
    found = best_sentences(f"{reading.question} {phrase}", reading.passages, limit=1)
    return with_support(phrase, found[0] if found else None, "generated")


def _chosen(answer: str, options: Sequence[str]) -> str | None:
    head = answer.strip().casefold()
    for option in sorted(options, key=len, reverse=True):
        if head.startswith(option.casefold()) and not head[len(option) : len(option) + 1].isalnum():
            return option
    return None


def _support(reading: Reading, short: str) -> Found | None:
    """The evidence sentence that best supports ``short`` as the answer: naming it when it is a name."""
    if reading.shape.shape == Shape.ENTITY:
        named = [f for f in reading.entities if f.short == short]
        if named:
            return named[0]
    found = best_sentences(f"{reading.question} {short}", reading.passages, limit=1)
    return found[0] if found else None


def _open(reading: Reading, answers: Sequence[str], best: int, extractive: bool) -> Answer:
    generated = answers[best] if 0 <= best < len(answers) else ""
    usable = generated and not declares_missing(generated) and not unsupported(generated, reading.passages)
    if usable and not extractive:
        short = _cap(generated)
        found = best_sentences(f"{reading.question} {short}", reading.passages, limit=1)
        return with_support(short, found[0] if found else None, "generated", repeat_support=True)
    found = best_sentences(reading.question, reading.passages, limit=1)
    if found:
        return with_support(_cap(found[0].sentence), found[0], "extractive", repeat_support=False)
    if usable:
        return with_support(_cap(generated), None, "generated")
    return Answer(MISSING, MISSING, "declined")


def _cap(text: str) -> str:
    first = " ".join(text.split())
    words = first.split(" ")
    return first if len(words) <= SHORT_WORDS else " ".join(words[:SHORT_WORDS]) + "…"


def unsupported(answer: str, passages: Sequence[Passage]) -> bool:
    """Whether ``answer``'s claim is not in the evidence: fewer than SUPPORT_SHARE of its content words, or a
    number it states, are absent from the passages it cites ("[2]"), or from all of them when it cites none.
    A decline, a bare verdict and an answer without passages to check against are not judged."""
    if not passages or declares_missing(answer):
        return False
    cited = {int(n) for n in _CITATION.findall(answer)}
    chosen = [p for p in passages if p.number in cited] or list(passages)
    evidence = " ".join(p.text for p in chosen).casefold()
    known = set(_WORD.findall(evidence))
    stems = {w[:5] for w in known}
    claim = re.sub(r"^\s*(?:yes|no)\b[.,:]?", "", _CITATION.sub(" ", answer), flags=re.IGNORECASE)
    words = content_words(claim)
    if words and sum(1 for w in words if w in known or w[:5] in stems) / len(words) < SUPPORT_SHARE:
        return True
    digits = evidence.replace(",", "")
    return any(n.replace(",", "").rstrip(".:") not in digits for n in _NUMBERS.findall(claim))
