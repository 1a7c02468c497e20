"""The plan of reading a question, model-free: its shape, and what the model chooses among.

The shape is the kind of answer a question asks for, and it decides how the answer is read.

Closed shapes (a yes/no verdict, one of two named options, a date, a number, a named entity) are answered by
choosing among candidates found in the evidence or by a constrained verdict, never by free text; open
questions (what did X say, how, why) get a short generated or extracted answer. A question asking for a version, a
licence or a command is answered by its fact reader alone (shared.reading.fact_reader). A question that starts with a
question word (who, which, what, when, ...) is never a yes/no question, whatever auxiliary follows later
("Which company, covered by ..., is known for ...?" asks for a company).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from shared.reading.fact_reader import FactKind, fact_kind
from shared.reading.span_reader import Found, Passage, rank_entities
from shared.reading.temporal import read_times

ENTITY_OPTIONS = 5
"""Entity names of the evidence the model chooses among."""


class Shape(StrEnum):
    YES_NO = "yes_no"
    CHOICE = "choice"
    """One of two options the question names ("... A or B?")."""
    ENTITY = "entity"
    """A named person, organisation, team, product or place."""
    DATE = "date"
    NUMBER = "number"
    OPEN = "open"


@dataclass(frozen=True)
class QuestionShape:
    shape: Shape
    options: tuple[str, ...] = ()
    """The two options of a CHOICE question, as written."""
    wants_person: bool = False
    """The question asks who (a person's name is the likelier answer)."""
    software: str = ""
    """The kind of software the question asks for ("library", "package", "application"; "" for none): its answer
    may be a lower-case name such as "hyper-h2" or one in backticks (shared.reading.span_reader)."""


_AUX = r"(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should)"
_PREP = r"(?:(?:in|on|at|for|from|to|by|with|of|during|after|before)\s+)?"
_WH_START = re.compile(rf"^\W*{_PREP}(?:who|whom|whose|which|what|when|where|why|how)\b", re.IGNORECASE)
_YES_NO = re.compile(rf"^\W*{_AUX}\b|,\s*{_AUX}\s+(?:there|the|it|this|that|both|all|[A-Z'‘\"])", re.IGNORECASE)
_LEAD = re.compile(r"^\W*(?:question:\s*)?", re.IGNORECASE)
_DATE = re.compile(r"^\W*(?:when\b|(?:on )?what (?:date|day|time|year|month)\b|which (?:date|day|year|month)\b)", re.I)
_NUMBER = re.compile(
    r"^\W*(?:how (?:many|much|long|old|far)\b|what (?:is the )?(?:number|amount|price|percentage)\b)", re.I
)
_ENTITY = re.compile(
    rf"^\W*{_PREP}(?:who|whom|whose)\b|^\W*{_PREP}(?:which|what)\s+(?:\w+\s+){{0,2}}?(?:company|companies|individual|person|people|"
    r"organi[sz]ation|entity|team|club|firm|platform|player|artist|singer|star|band|brand|country|city|state|"
    r"university|network|agency|exchange|website|app|service|product|game|device|event|group|league|"
    r"library|package|module|framework|tool|application)\b"
    rf"|^\W*{_PREP}which\b",
    re.IGNORECASE,
)
_SOFTWARE = re.compile(
    rf"^\W*{_PREP}(?:which|what)\s+(?:[\w-]+\s+){{0,2}}?(librar(?:y|ies)|packages?|modules?|frameworks?|tools?|"
    r"applications?|plugins?|extensions?|dependency|dependencies|backends?)\b",
    re.IGNORECASE,
)
_PERSON = re.compile(r"^\W*(?:who|whom|whose)\b|\b(?:individual|person|player|artist|singer|star|he|she)\b", re.I)
_NAME = r"[A-Z][\w'’.&-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'’.&-]*)*"
_CHOICE = re.compile(rf"\b({_NAME})\s*,?\s+or\s+(?:the\s+)?({_NAME})\s*\??\s*$")
_OPPOSITES = "before|after|consistent|inconsistent|similar|different|same|higher|lower|more|less|earlier|later"
_WORD_CHOICE = re.compile(rf"\b({_OPPOSITES})\s+or\s+({_OPPOSITES})\b", re.IGNORECASE)


def shape_of(question: str) -> QuestionShape:
    """The shape of ``question`` (see :class:`Shape`)."""
    text = _LEAD.sub("", question.strip())
    choice = _WORD_CHOICE.search(text) or _CHOICE.search(text)
    if choice and choice.group(1).casefold() != choice.group(2).casefold():
        return QuestionShape(Shape.CHOICE, (choice.group(1), choice.group(2)))
    if not _WH_START.match(text):
        return QuestionShape(Shape.YES_NO if _YES_NO.search(text) else Shape.OPEN)
    if _DATE.match(text):
        return QuestionShape(Shape.DATE)
    if _NUMBER.match(text):
        return QuestionShape(Shape.NUMBER)
    if _ENTITY.match(text):
        software = _SOFTWARE.match(text)
        kind = software.group(1).casefold() if software else ""
        return QuestionShape(Shape.ENTITY, wants_person=bool(_PERSON.search(text)), software=kind)
    return QuestionShape(Shape.OPEN)


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
    fact: FactKind | None = None
    """The fact the question asks for (a version, a licence, a command), read by the fact reader alone."""

    @property
    def needs_model(self) -> bool:
        """Whether the model's samples can change the answer: not for a question a fact reader answers."""
        return self.fact is None

    def by_claims(self, dates: bool) -> bool:
        """Whether this is a yes/no question for the claim reader (shared.reading.claims): not one the dated-events
        reader answers first (``dates``: that reader is on)."""
        if self.shape.shape != Shape.YES_NO:
            return False
        return not (dates and read_times(self.question, self.passages) is not None)


def plan_reading(question: str, passages: Sequence[Passage]) -> Reading:
    """What to ask the model for ``question`` given ``passages``."""
    shape = shape_of(question)
    held = tuple(passages)
    fact = None if shape.shape == Shape.YES_NO else fact_kind(question)
    if shape.shape == Shape.YES_NO:
        return Reading(question, shape, held, ("yes", "no"))
    if shape.shape == Shape.CHOICE:
        return Reading(question, shape, held, shape.options, fact=fact)
    if shape.shape == Shape.ENTITY:
        found = tuple(rank_entities(question, held, shape.wants_person, shape.software))
        names = tuple(dict.fromkeys(f.short for f in found[:ENTITY_OPTIONS]))
        return Reading(question, shape, held, names, found, fact)
    return Reading(question, shape, held, (), fact=fact)
