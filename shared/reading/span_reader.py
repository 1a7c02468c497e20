"""Model-free readers: the named entity, the date or the sentences of the evidence that answer a question.

Passages are the numbered evidence an answer cites. Entities are scored by how many passages name them, how
many of the question's content words their sentences share, and how many of those words the passages naming them
hold together (a multi-part question's answer is backed on each part). A rarer word (in fewer of the passages)
counts for more. Names the question itself uses are never the answer. A short name folds into the longer one it
ends or starts ("Bankman-Fried" into "Sam Bankman-Fried"). A who-question gets a person's name where the passages
name one. Sentences are scored by the question's content words they cover.

A date is the most specific date or time phrase a sentence names, as a person would say it back: "7 PM on
Saturday", "next Tuesday", "2023-10-06", "20260122_15:00". A day joined to a time counts as one phrase, and a
phrase the question itself names is not the answer.

An *extract* quotes the sentences that best support the question, each with its source. It is shown when no
trustworthy generated answer exists (the gate escalated and the cloud did not answer, or every sample was
degenerate). It says plainly that it is an extract.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core.candidates import find_candidates
from shared.core.text import content_words, normalise_name, occurs_in, sentences

IDF_WEIGHT = 1.0
"""How much more a question word held by few passages counts than one held by all (0 = all alike). 1.0: on the
fit half's entity questions read from their gold evidence 79.1% (multihop4) and 20.0% (lihua4) against 76.7% and
16.7% with 0, and 72.1% either way with the four most similar other articles added (benchmarks/reader_oracle)."""
BACKING_WEIGHT = 2.0
"""What each question word (by its weight) in the passages naming an entity adds to its score, each word counted
once however often it is met: a multi-part question's answer is named in passages that together cover its parts,
while a much-mentioned name may be met in passages about one part only. Fitted on the fit half's entity asks read
from the contexts the cloud and edges retrieved (benchmarks.reader_oracle --context): 69.8% at 0, 69.8% at 1,
72.1% at 2, 70.9% at 4 and 8; from gold evidence 61.6% at each."""
PASSAGE_WEIGHT = 3.0
"""What naming an entity at all in one more passage is worth, against one covered question word."""
_CODE_NAME = re.compile(r"`([A-Za-z][\w-]{1,40})`")
_JOINED_NAME = re.compile(
    r"(?<![\w./@:-])[a-z][a-z0-9-]*(?:_[a-z0-9]+|(?<=[a-z])[0-9]+[a-z0-9]*|-[a-z]*[0-9][a-z0-9]*)(?![\w/@-]|\.\w)"
)
"""A lower-case identifier joined by an underscore or carrying a digit ("huggingface_hub", "httpcore2",
"hyper-h2"); not part of a path, address or file name."""
_WRAPPED = re.compile(r"(?<=[\w,;])[ \t]*\n[ \t]*(?=[a-z])")
"""A line break inside a sentence: a hard-wrapped line ("written in Python,\nheavily inspired by hyper-h2.")."""
_HEADING = re.compile(r"\s*#{1,6}\s")
"""A Markdown heading line."""
_AND = re.compile(r"\s+(?:and|&)\s+")
_NUMBER = re.compile(r"[$€£]?\d[\d,.]*\s?(?:%|percent|million|billion|k\b)?")


@dataclass(frozen=True)
class Passage:
    """One numbered piece of evidence."""

    number: int
    text: str
    source: str
    """Where it came from, e.g. ``doc-12`` or ``business:doc-12``."""

    @property
    def citation(self) -> str:
        """How an answer cites it: ``[2: business:doc-12]``."""
        return f"[{self.number}: {self.source}]"


@dataclass(frozen=True)
class Found:
    """A reader's answer: the short answer, the sentence that supports it and its passage."""

    short: str
    sentence: str
    passage: Passage
    score: float
    at: int = 0
    """The sentence's place among all the passages' sentences (reading order)."""


def numbered_context(passages: Sequence[Passage]) -> str:
    """The passages as a model reads them: each as "[number] text", a blank line between them."""
    return "\n\n".join(f"[{p.number}] {p.text}" for p in passages)


def stems(text: str) -> set[str]:
    """The first five letters of each content word: how readers compare a question's words with a text's."""
    return {w[:5] for w in content_words(text)}


def best_sentences(question: str, passages: Sequence[Passage], limit: int = 1) -> list[Found]:
    """The sentences covering most of the question's content words (ties: earlier first)."""
    terms = stems(question)
    scored: list[tuple[float, Found]] = []
    at = 0
    for passage in passages:
        for sentence in sentences(passage.text):
            at += 1
            covered = len(stems(sentence) & terms)
            if covered:
                scored.append((covered / (len(terms) or 1), Found(sentence, sentence, passage, covered, at)))
    scored.sort(key=lambda t: (-t[0], t[1].at))
    return [found for _, found in scored[:limit]]


def rank_entities(
    question: str, passages: Sequence[Passage], wants_person: bool = False, software: str = ""
) -> list[Found]:
    """Named entities of ``passages`` that could answer ``question``, best first; where the question asks for a
    kind of ``software`` ("library"), its lower-case names too (see :func:`_software_names`)."""
    terms = stems(question)
    weight = term_weights(terms, passages)
    score: dict[str, float] = {}
    where: dict[str, tuple[str, str, Passage, float]] = {}
    backed: dict[str, set[str]] = {}
    for passage in passages:
        named: set[str] = set()
        held = stems(passage.text) & terms
        for sentence in sentences(_WRAPPED.sub(" ", passage.text)):
            if _HEADING.match(sentence):
                continue  # a section's title ("## Security Disclosures") names the section, not an answer
            covered = sum(weight[t] for t in stems(sentence) & terms)
            for name in [*_names(sentence), *(_software_names(sentence) if software else ())]:
                key = normalise_name(name)
                if not key or occurs_in(name, question):
                    continue
                score[key] = score.get(key, 0.0) + 1 + covered
                if key not in named:
                    score[key] += PASSAGE_WEIGHT
                    named.add(key)
                    backed.setdefault(key, set()).update(held)
                if key not in where or covered > where[key][3]:
                    where[key] = (name, sentence, passage, covered)
    _fold_short_names(score, where, backed)
    person = {k for k, v in score.items() if wants_person and v > 0 and _person_like(where[k][0])}
    for key in score:
        score[key] += BACKING_WEIGHT * sum(weight[t] for t in backed.get(key, ()))
    # a who-question names a person where the passages name one (not "FTX" or "SBF Trial")
    ranked = sorted(score, key=lambda k: (bool(person) and k not in person, -score[k], k))
    # a name only found in passages sharing no word with the question is no answer to it
    related = {p.number for p in passages if stems(p.text) & terms}
    return [
        Found(where[k][0], where[k][1], where[k][2], score[k])
        for k in ranked
        if score[k] > 0 and where[k][2].number in related
    ]


def _person_like(name: str) -> bool:
    """Two to four capitalised words, each with lower-case letters and no digits ("Sam Bankman-Fried", not "CEO of
    FTX" or "Vikings DIDN'T")."""
    words = name.split()
    return 2 <= len(words) <= 4 and all(
        w[:1].isupper() and any(c.islower() for c in w) and not any(c.isdigit() for c in w) for w in words
    )


def term_weights(terms: set[str], passages: Sequence[Passage]) -> dict[str, float]:
    """Each question term's weight: 1 for a term in every passage, more for rarer ones (IDF_WEIGHT scales it), so
    that "Kindle" counts for more than "company" among passages that all say "company"."""
    held = [stems(p.text) for p in passages]
    n = len(held) or 1
    return {t: 1.0 + IDF_WEIGHT * math.log(n / (1 + sum(1 for h in held if t in h)) + 1.0) for t in terms}


def _names(sentence: str) -> list[str]:
    """The sentence's name candidates, a listing such as "FTX and Alameda Research" taken as its two names."""
    out: list[str] = []
    for candidate in find_candidates(sentence, 30):
        if candidate.kind == "name":
            out.extend(part.strip() for part in _AND.split(candidate.name) if part.strip())
    return out


def _software_names(sentence: str) -> list[str]:
    """Lower-case names of software in ``sentence``: a word in backticks (```loky```), or one joined by an
    underscore or carrying a digit ("hyper-h2", "httpcore2", "huggingface_hub"). Capitalised names are the name
    reader's; a lower-case word written plainly is not told from an ordinary one."""
    out = [m.group(1) for m in _CODE_NAME.finditer(sentence)]
    return out + [m.group(0) for m in _JOINED_NAME.finditer(sentence)]


def _fold_short_names(
    score: dict[str, float], where: dict[str, tuple[str, str, Passage, float]], backed: dict[str, set[str]]
) -> None:
    """Move each name's score to the best-scored longer name that ends or starts with it and can be the same
    entity's fuller name ("Sam Bankman-Fried" for "Bankman-Fried"; not "Apple 16-inch M3 Max MacBook Pro", a
    product, for "Apple")."""
    keys = sorted(score, key=len)
    for key in keys:
        longer = [
            k
            for k in keys
            if len(k) > len(key)
            and (k.endswith((f" {key}", f"-{key}")) or k.startswith(f"{key} "))
            and _fuller_name(k, key)
        ]
        if longer:
            target = max(longer, key=lambda k: (score[k], k))
            score[target] += score[key]
            score[key] = 0
            backed.setdefault(target, set()).update(backed.pop(key, set()))


def find_date(question: str, passages: Sequence[Passage]) -> Found | None:
    """The date or time phrase of the sentence that best matches the question (shared.reading.span_reader: "7 PM on
    Saturday", not one the question names), else the first date of that sentence's passage (a chat's time line,
    an article's publication date)."""
    for found in best_sentences(question, passages, limit=3):
        if phrase := date_phrase(found.sentence, question):
            return Found(phrase, found.sentence, found.passage, found.score)
        if day := first_date(found.passage.text):
            return Found(day, found.sentence, found.passage, found.score)
    return None


def find_number(question: str, passages: Sequence[Passage]) -> Found | None:
    """The first number of the sentence that best matches the question."""
    for found in best_sentences(question, passages, limit=3):
        for m in _NUMBER.finditer(found.sentence):
            if not occurs_in(m.group(0).strip(), question):
                return Found(m.group(0).strip(), found.sentence, found.passage, found.score)
    return None


FULLER_NAME_EXTRA_WORDS = 2
"""A longer name is a fuller form of a short one when it adds at most this many words ("Diablo 4", "Sam
Bankman-Fried"); a longer one is another thing named after it (a product of a company, a title)."""


def _fuller_name(long: str, short: str) -> bool:
    return len(long.split()) - len(short.split()) <= FULLER_NAME_EXTRA_WORDS


_DAY = r"(?:(?:next|this|last)\s+)?(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)(?:\s+next\s+week)?"
_CLOCK = r"\d{1,2}(?::\d{2})?\s?(?:AM|PM|am|pm|a\.m\.|p\.m\.)"
_STAMP = r"\d{8}(?:_\d{1,2}:\d{2})?"
_ISO = r"\d{4}-\d{2}-\d{2}(?:T[\d:+]+)?"
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|"
    r"Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s*\d{4})?"
)
_PHRASES = (
    re.compile(rf"\b{_DAY},?\s+(?:at|from|around)\s+{_CLOCK}"),
    re.compile(rf"\b{_CLOCK}\s+(?:on|this|next)\s+{_DAY}\b"),
    re.compile(rf"\b(?:{_STAMP}|{_ISO}|{_MONTH})\b"),
    re.compile(rf"\b{_CLOCK}"),
    re.compile(rf"\b{_DAY}\b"),
)
"""Most specific first: a day with its time, a calendar date, a time, a day."""
_ANY_DATE = re.compile(rf"\b(?:{_STAMP}|{_ISO}|{_MONTH}|{_CLOCK})")


def date_phrase(text: str, question: str = "") -> str | None:
    """The most specific date or time phrase of ``text`` that ``question`` does not name (first in the text among
    equally specific ones), or None."""
    for pattern in _PHRASES:
        for m in pattern.finditer(text):
            phrase = m.group(0).strip()
            if not _named(phrase, question):
                return phrase
    return None


def _named(phrase: str, question: str) -> bool:
    """``question`` names ``phrase``, or the day of a time stamp ("20260805" of "20260805_16:00")."""
    day = phrase.split("_", 1)[0]
    return bool(question) and (occurs_in(phrase, question) or (day != phrase and occurs_in(day, question)))


def first_date(text: str) -> str | None:
    """The first calendar date, time stamp or clock time of ``text`` (a chat's time line, an article's date)."""
    m = _ANY_DATE.search(text)
    return m.group(0) if m else None


EXTRACT_PREFIX = "Extract from the documents (not a generated answer): "
MAX_SENTENCES = 2
MAX_SENTENCE_CHARS = 300


@dataclass(frozen=True)
class SourcedText:
    """A piece of context and where it came from."""

    text: str
    source: str
    """Shown after each quoted sentence, e.g. ``doc-12`` or ``business:doc-12``."""


def extractive_answer(question: str, passages: Sequence[SourcedText], max_sentences: int = MAX_SENTENCES) -> str:
    """The best-supported sentences of ``passages`` for ``question``, each followed by its source;
    says that nothing was found when no sentence shares a content word with the question."""
    numbered = [Passage(i, p.text, p.source) for i, p in enumerate(passages)]
    best = best_sentences(question, numbered, limit=max_sentences)
    if not best:
        return EXTRACT_PREFIX + "nothing in the retrieved documents matches the question."
    in_order = sorted(best, key=lambda f: f.at)
    return EXTRACT_PREFIX + " ".join(f"{_clip(f.sentence.strip())} [{f.passage.source}]" for f in in_order)


def is_extractive(answer: str) -> bool:
    """Whether ``answer`` was made by :func:`extractive_answer`."""
    return answer.startswith(EXTRACT_PREFIX)


def _clip(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
