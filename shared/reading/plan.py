"""The shape of a question, model-free: the kind of answer it asks for.

The reader (shared.reading.passage_reader) reads every shape the same way; the shape tells it only whether a
verdict (Yes or No) is wanted. Reports use the shape to set each question beside the baseline that knows it. A
question that starts with a question word (who, which, what, when, ...) is never a yes/no question, whatever
auxiliary follows later ("Which company, covered by ..., is known for ...?" asks for a company).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


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
        return QuestionShape(Shape.ENTITY)
    return QuestionShape(Shape.OPEN)
