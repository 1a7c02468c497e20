"""Yes/no questions about when things happened, answered from the dates of the passages that tell of them.

"Did A happen before B?", "... after ...", "Is the time interval between A and B more than 3 days?" need no
model: each event is matched to the sentence of the evidence that covers most of its words, each sentence dated
by its passage (the first date the passage states, such as a chat's time line or an article's publication date,
else a date in its source's name), and the dates compared. Two events told in one passage are ordered by where
they are told. Where an event matches no sentence well, or has no date, there is no verdict (the question goes
to the other readers).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from shared.core.text import content_words
from shared.reading.phrases import spoken
from shared.reading.span_reader import Found, Passage, stems, term_weights

MIN_EVENT_SHARE = 0.3
"""An event is found when one sentence holds at least this weighted share of its content words. Fitted on the fit
half's time questions read from their gold evidence (benchmarks.reader_oracle): 0.3 answered 11 of 21 and got 10
right (0.5: 2 of 21; 0.2: 16, 13 right); on the report half, never fitted on, it answered 11 of 20, all right.
Counting a chat line's speaker toward each of its sentences, reading two events from two places and refusing an
event whose best places tie at different dates (issue 34): on the fit half from gold evidence again 11 answered,
10 right; from the contexts the fit half's lihua4 asks retrieved locally 5 -> 6 answered, all right; on the report
half from gold evidence 11 -> 15 answered, 11 -> 13 right."""
_AUX = r"(?:did|does|do|was|were|is|are|has|have|had)"
_ORDER = re.compile(rf"^\s*{_AUX}\s+(?P<a>.+?)\s+(?P<rel>before|after)\s+(?P<b>.+?)\s*\??\s*$", re.I | re.S)
_RELATION = re.compile(r"\s(before|after)\s", re.I)
_JUDGEMENT = re.compile(
    r"\b(?:while|whereas|suggests?|consisten\w*|compared|unlike|contrast|(?:was|were|is) there"
    r"|changed?\s+(?:its|their))\b",
    re.I,
)
"""Words of a question that judges what sources say, not only when: not one these readers answer."""
_CLAUSE_START = re.compile(r"^(?:he|she|they|it|we|i|you|[A-Z][a-z]+)\b")
_JOINED_NAME = re.compile(r"([a-z])([A-Z])")
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_UNIT = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
_AMOUNT = (
    r"(?P<cmp>more|less|longer|shorter)\s+than\s+(?P<n>\d+|an?|one|two|three|four|five|six|seven)"
    r"\s+(?P<unit>hour|day|week)s?"
)
_INTERVAL = (
    re.compile(rf"interval\s+(?:is\s+)?{_AMOUNT}\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*(?:\(|\?|$)", re.I | re.S),
    re.compile(rf"interval\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s+{_AMOUNT}", re.I | re.S),
    re.compile(rf"take\s+{_AMOUNT}\s+from\s+(?P<a>.+?)\s+to\s+(?P<b>.+?)\s*(?:\(|\?|$)", re.I | re.S),
)
_DATES = (
    (re.compile(r"\b(20\d{2})(\d{2})(\d{2})(?:_(\d{1,2}):(\d{2}))?\b"), "compact"),
    (re.compile(r"\b(20\d{2})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2}))?\b"), "iso"),
)


@dataclass(frozen=True)
class TimeQuestion:
    """Two events and what the question asks of their times."""

    first: str
    second: str
    relation: str
    """before / after (the first event relative to the second), or more / less (the time between them)."""
    amount: timedelta = timedelta(0)


def time_question(question: str) -> TimeQuestion | None:
    """The events a yes/no question compares by time, or None when it asks something else."""
    for pattern in _INTERVAL:
        if m := pattern.search(question):
            n = m.group("n").lower()
            count = int(n) if n.isdigit() else _NUMBER_WORDS[n]
            relation = "more" if m.group("cmp").lower() in ("more", "longer") else "less"
            return TimeQuestion(m.group("a"), m.group("b"), relation, count * _UNIT[m.group("unit").lower()])
    if not _ORDER.match(question):
        return None
    return _split_order(question)


def _split_order(question: str) -> TimeQuestion | None:
    """Split at the relation word that starts a clause ("before he told her"), else at the last one."""
    body = re.sub(rf"^\s*{_AUX}\s+", "", question.strip().rstrip("?"), flags=re.I)
    found = list(_RELATION.finditer(f" {body} "))
    if not found:
        return None
    clauses = [m for m in found if _CLAUSE_START.match(f" {body} "[m.end() :])]
    at = (clauses or found)[-1]
    first, second = f" {body} "[: at.start()].strip(), f" {body} "[at.end() :].strip()
    # a short second part must be a clause ("before he told her"), not a time ("after Black Friday")
    short = len(content_words(second)) < 3 and at not in clauses
    if len(content_words(first)) < 2 or len(content_words(second)) < 2 or short or _JUDGEMENT.search(question):
        return None
    return TimeQuestion(first, second, at.group(1).lower())


def passage_time(passage: Passage) -> datetime | None:
    """The first date the passage states (its time line, its publication date), else one in its source's name."""
    for text in (passage.text, passage.source):
        found = [(m.start(), m) for pattern, _ in _DATES for m in pattern.finditer(text)]
        for _, m in sorted(found, key=lambda t: t[0]):
            year, month, day, hour, minute = m.groups()
            try:
                return datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0))
            except ValueError:
                continue
    return None


def read_times(question: str, passages: Sequence[Passage]) -> Found | None:
    """A "Yes" or "No" read from the passages' dates (its support: the second event's sentence), or None."""
    asked = time_question(question)
    if asked is None:
        return None
    pair = _events(asked, passages)
    if pair is None:
        return None
    first, second = pair
    t1, t2 = passage_time(first.passage), passage_time(second.passage)
    if t1 is None or t2 is None:
        return None
    if t1 == t2:
        if first.passage.number != second.passage.number or asked.relation in ("more", "less"):
            return None
        earlier = first.at < second.at
    else:
        earlier = t1 < t2
    verdict = {
        "before": earlier,
        "after": not earlier,
        "more": abs(t2 - t1) > asked.amount,
        "less": abs(t2 - t1) < asked.amount,
    }[asked.relation]
    return Found("Yes" if verdict else "No", second.sentence, second.passage, second.score, second.at)


def _events(asked: TimeQuestion, passages: Sequence[Passage]) -> tuple[Found, Found] | None:
    """The places that tell of the two events: each event's best sentence, or where both would be the same
    sentence (two events are told in two places), the pair of different sentences with the larger total share.
    None where an event is not found or its best places tie at different dates."""
    first, second = _places(asked.first, passages), _places(asked.second, passages)
    if not first or not second or _ambiguous(first) or _ambiguous(second):
        return None
    a, b = first[0], second[0]
    if a.at != b.at:
        return a, b
    options = [(a, second[1])] if len(second) > 1 else []
    options += [(first[1], b)] if len(first) > 1 else []
    return max(options, key=lambda pair: pair[0].score + pair[1].score) if options else None


def _ambiguous(places: list[Found]) -> bool:
    """Whether the best places an event matches equally well are dated differently: then it has no one date."""
    best = [f for f in places if f.score >= places[0].score - 1e-9]
    return len({passage_time(f.passage) for f in best}) > 1


def _places(text: str, passages: Sequence[Passage]) -> list[Found]:
    """The sentences that tell of the event ``text``, best first: those holding at least MIN_EVENT_SHARE of its
    weighted content words (a word in fewer passages weighs more; names written together, "AdamSmith", count as
    their words; a chat line's speaker counts as part of each of its sentences)."""
    wanted = _stems(text)
    if not wanted:
        return []
    weight = term_weights(wanted, [Passage(p.number, _split_names(p.text), p.source) for p in passages])
    total = sum(weight.values())
    found: list[Found] = []
    at = 0
    for passage in passages:
        for speaker, _, sentence in spoken(passage.text):
            at += 1
            told = _stems(f"{speaker} {sentence}")
            share = sum(weight[t] for t in told & wanted) / total
            if share >= MIN_EVENT_SHARE:
                found.append(Found(sentence, sentence, passage, share, at))
    return sorted(found, key=lambda f: -f.score)


def _stems(text: str) -> set[str]:
    return stems(_split_names(text))


def _split_names(text: str) -> str:
    return _JOINED_NAME.sub(r"\1 \2", text)
