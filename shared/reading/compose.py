"""Reading an answer out of numbered evidence: what the model is asked, and the answer a person is shown.

:func:`plan_reading` decides from the question's shape what the model chooses among (a yes/no verdict, the two
options the question names, the entity names of the evidence) or that it writes one free sentence.
:func:`compose` turns the model's sampled answers into the shown answer: it leads with the short answer (the
samples' vote, or the model-free reader's pick where that reads better: see ``AnswerConfig``), then one
supporting sentence of the evidence with its source. :func:`unsupported` is the model-free grounding check: a
sample whose content words and numbers are mostly not in the evidence is not supported by it.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.sureness import WITHHOLD_BELOW
from shared.core.text import content_words, truncate_chars
from shared.reading.answer import Answer
from shared.reading.answer_format import MISSING, declares_missing
from shared.reading.claim_verdict import ClaimVerdict
from shared.reading.claims import ClaimFinding, describe, findings
from shared.reading.confidence import PRIOR, Calibration, Confidence, Evidence, evidence_of
from shared.reading.fact_reader import fact_kind, read_fact
from shared.reading.question_shape import QuestionShape, Shape, shape_of
from shared.reading.reader_profile import ReaderProfile
from shared.reading.short_phrase import agreed_phrase
from shared.reading.span_reader import Found, Passage, best_sentences, find_date, find_number, rank_entities
from shared.reading.temporal import read_times
from shared.reading.utterance import read_utterance, who_said

ENTITY_OPTIONS = 5
"""Entity names of the evidence the model chooses among."""
SHORT_WORDS = 30
"""A shown short answer (generated or extracted) is cut to this many words: a long extract must not win by
containing everything."""
DEFAULT_READERS = ReaderProfile()
UNSETTLED = "Can't tell"
"""The head of an answer whose two-way verdict is withheld: what bears on each claim follows."""
TWO_WAY = (Shape.YES_NO, Shape.CHOICE)
"""Shapes whose verdict is one of two: one whose own confidence is below WITHHOLD_BELOW (by default) is not shown."""
SUPPORT_CHARS = 240
SUPPORT_SHARE = 0.5
"""A sample is supported when at least this share of its content words (and every number) is in the evidence."""
_CITATION = re.compile(r"\[(\d{1,3})\]")
_NUMBERS = re.compile(r"\d[\d,.:]*")
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Reading:
    """How one question is read from its evidence."""

    question: str
    shape: QuestionShape
    passages: tuple[Passage, ...]
    options: tuple[str, ...]
    """What the model chooses among (empty: it writes one free sentence)."""
    entities: tuple[Found, ...] = ()
    """The model-free entity reader's candidates, best first (entity questions)."""


def needs_model(reading: Reading) -> bool:
    """Whether the model's samples can change the answer to ``reading``: not for a question a fact reader
    answers."""
    return fact_kind(reading.question) is None


def by_claims(reading: Reading, readers: ReaderProfile) -> bool:
    """Whether ``reading`` is a yes/no question for the claim reader (shared.reading.claim_verdict): not one the
    dated-events reader answers first."""
    if reading.shape.shape != Shape.YES_NO:
        return False
    return not (readers.dates and read_times(reading.question, reading.passages) is not None)


def plan_reading(question: str, passages: Sequence[Passage]) -> Reading:
    """What to ask the model for ``question`` given ``passages``."""
    shape = shape_of(question)
    held = tuple(passages)
    if shape.shape == Shape.YES_NO:
        return Reading(question, shape, held, ("yes", "no"))
    if shape.shape == Shape.CHOICE:
        return Reading(question, shape, held, shape.options)
    if shape.shape == Shape.ENTITY:
        found = tuple(rank_entities(question, held, shape.wants_person))
        names = tuple(dict.fromkeys(f.short for f in found[:ENTITY_OPTIONS]))
        return Reading(question, shape, held, names, found)
    return Reading(question, shape, held, ())


def compose(
    reading: Reading,
    answers: Sequence[str],
    best: int = 0,
    readers: ReaderProfile = DEFAULT_READERS,
    quote: bool = True,
    calibration: Calibration = PRIOR,
    withhold_below: float = WITHHOLD_BELOW,
) -> Answer:
    """The shown answer from the rendered sampled ``answers`` (``best``: the sample the gate chose), each shape read
    by the reader ``readers`` names for it (see shared.reading.reader_profile), with its confidence under
    ``calibration``. ``quote`` False (the reader may not receive the evidence's text, e.g. another edge's): no
    sentence of the evidence is shown, only its source, and open questions get the samples' short phrase or none.
    A two-way verdict (yes/no, one of two options) whose own confidence is below ``withhold_below`` is withheld:
    can't tell, and what bears on each of the question's claims (shared.reading.claims)."""
    shown = _read(reading, answers, best, readers, quote)
    if shown.reader == "declined":
        return shown
    texts = [p.text for p in reading.passages]
    evidence = evidence_of(reading.question, reading.shape.shape.value, shown.reader, shown.short, texts, answers)
    confidence = calibration.confidence(evidence)
    if reading.shape.shape in TWO_WAY and confidence.probability < withhold_below:
        return _unsettled(reading, quote, evidence, shown.short)
    return dataclasses.replace(shown, confidence=confidence, evidence=evidence)


def compose_verdict(
    reading: Reading, verdict: ClaimVerdict, quote: bool = True, withhold_below: float = WITHHOLD_BELOW
) -> Answer:
    """The shown answer to a yes/no question read claim by claim (shared.reading.claim_verdict): its verdict with
    the first claim's best sentence, its confidence the verdict's own probability; below ``withhold_below``, can't
    tell, with each claim's best sentence and whether the model finds the claim there."""
    texts = [p.text for p in reading.passages]
    evidence = evidence_of(reading.question, reading.shape.shape.value, "claims", verdict.short, texts, [])
    findings_seen = [s.finding() for s in verdict.claims]
    if verdict.probability < withhold_below:
        return _unsettled(reading, quote, evidence, verdict.short, findings_seen)
    support = findings_seen[0].found if findings_seen else None
    shown = _shown(verdict.short, support, "claims")
    if not quote:
        cite = f" [{support.passage.number}: {support.passage.source}]" if support else ""
        shown = Answer(f"{verdict.short}.{cite}", verdict.short, "claims", support)
    return dataclasses.replace(
        shown, confidence=Confidence.of(verdict.probability), evidence=evidence, claims=tuple(findings_seen)
    )


def _unsettled(
    reading: Reading,
    quote: bool,
    evidence: Evidence,
    withheld: str,
    found_claims: Sequence[ClaimFinding] | None = None,
) -> Answer:
    """No verdict: what bears on each claim of the question, with its source (the evidence of the withheld
    verdict is kept for the trace)."""
    seen = findings(reading.question, reading.passages) if found_claims is None else found_claims
    found = describe(seen, quote)
    shown = f" What the sources say {found}." if found else ""
    return Answer(f"{UNSETTLED}.{shown}", "", "unsettled", evidence=evidence, withheld=withheld, claims=tuple(seen))


def _read(reading: Reading, answers: Sequence[str], best: int, readers: ReaderProfile, quote: bool) -> Answer:
    if not quote:
        shown = _read(reading, answers, best, dataclasses.replace(readers, open="model"), True)
        if shown.reader == "declined":
            return shown
        cite = f" [{shown.support.passage.number}: {shown.support.passage.source}]" if shown.support else ""
        return Answer(f"{shown.short}.{cite}", shown.short, shown.reader, shown.support)
    if (special := _special(reading, readers)) is not None:
        return special
    shape = reading.shape.shape
    extractive = readers.reader(shape) == "extractive"
    if reading.options and shape in (Shape.YES_NO, Shape.CHOICE):
        return _voted(reading, answers)
    if shape == Shape.ENTITY and reading.entities:
        if extractive:
            top = reading.entities[0]
            return _shown(top.short, top, "extractive")
        return _voted(reading, answers)
    if extractive and shape in (Shape.DATE, Shape.NUMBER):
        finder = find_date if shape == Shape.DATE else find_number
        if (found := finder(reading.question, reading.passages)) is not None:
            return _shown(found.short, found, "extractive")
    if shape == Shape.OPEN and not extractive:
        return _phrase(reading, answers)
    return _open(reading, answers, best, extractive)


def _special(reading: Reading, readers: ReaderProfile) -> Answer | None:
    """The model-free readers of particular questions, which answer before the shape's reader where they can: a
    version, licence or command (shared.reading.fact_reader), the order of two dated events
    (shared.reading.temporal), a speaker's own line or who said a line (shared.reading.utterance)."""
    shape, question, passages = reading.shape, reading.question, reading.passages
    found: Found | None = None
    if shape.shape != Shape.YES_NO and (kind := fact_kind(question)) is not None:
        # a version, a licence or a command is the span that states it, or nothing: never a name or a paraphrase
        fact = read_fact(kind, question, passages)
        return _shown(fact.short, fact, "fact") if fact else Answer(MISSING, MISSING, "declined")
    if shape.shape == Shape.YES_NO and readers.dates:
        found, reader = read_times(question, passages), "dates"
    elif shape.shape == Shape.ENTITY and shape.wants_person and readers.speakers:
        found, reader = who_said(question, passages), "speaker"
    elif shape.shape == Shape.OPEN and readers.speakers:
        found, reader = read_utterance(question, passages), "speaker"
    return _shown(found.short, found, reader) if found is not None else None


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
    return _shown(winner[:1].upper() + winner[1:], support, "vote")


def _phrase(reading: Reading, answers: Sequence[str]) -> Answer:
    """An open question's short phrase, agreed by the samples that the evidence supports."""
    grounded = [a for a in answers if not declares_missing(a) and not unsupported(a, reading.passages)]
    phrase = agreed_phrase(reading.question, grounded)
    if not phrase:
        return Answer(MISSING, MISSING, "declined")
    found = best_sentences(f"{reading.question} {phrase}", reading.passages, limit=1)
    return _shown(phrase, found[0] if found else None, "generated")


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
        return _shown(short, found[0] if found else None, "generated", repeat_support=True)
    found = best_sentences(reading.question, reading.passages, limit=1)
    if found:
        return _shown(_cap(found[0].sentence), found[0], "extractive", repeat_support=False)
    if usable:
        return _shown(_cap(generated), None, "generated")
    return Answer(MISSING, MISSING, "declined")


def _shown(short: str, support: Found | None, reader: str, repeat_support: bool = True) -> Answer:
    """``Short answer. "Supporting sentence" [n: source]`` (the sentence left out when it is the answer)."""
    head = short.strip().rstrip(".")
    if support is None:
        return Answer(f"{head}.", head, reader)
    cite = f"[{support.passage.number}: {support.passage.source}]"
    if not repeat_support or support.sentence.strip().rstrip(".") == head:
        return Answer(f"{head}. {cite}", head, reader, support)
    sentence = truncate_chars(" ".join(support.sentence.split()), SUPPORT_CHARS)
    return Answer(f'{head}. "{sentence}" {cite}', head, reader, support)


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
