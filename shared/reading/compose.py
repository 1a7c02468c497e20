"""The answer a person is shown, from what the model said (shared.reading.passage_reader), with its confidence.

:func:`compose` leads with the short answer (a span of a passage or a verdict), then the sentence that supports it
and its source (shared.reading.answer), or the source alone where the asker may not receive the evidence's text.
It computes and applies the answer's confidence; a verdict below ``withhold_below`` is withheld: the answer says
can't tell and shows the sentence that bears most on the question.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from shared.core.sureness import WITHHOLD_BELOW
from shared.core.text import truncate_chars
from shared.reading.answer import SUPPORT_CHARS, Answer, cited, with_support
from shared.reading.answer_format import MISSING
from shared.reading.confidence import PRIOR, Calibration, Evidence, question_parts
from shared.reading.passage_reader import DECLINED, Said, agreement
from shared.reading.plan import shape_of
from shared.reading.span_reader import Passage

UNSETTLED = "Can't tell: the sources do not settle it"


def compose(
    question: str,
    said: Sequence[Said],
    best: int,
    passages: Sequence[Passage],
    quote: bool = True,
    calibration: Calibration = PRIOR,
    withhold_below: float = WITHHOLD_BELOW,
) -> Answer:
    """The shown answer: ``said[best]`` (the sample the gate chose, or the only one) with its confidence under
    ``calibration``. ``quote`` False (the asker may not receive the evidence's text, e.g. another edge's): no
    sentence of the evidence is shown, only its source."""
    shown = said[best] if 0 <= best < len(said) else DECLINED
    if shown.kind == DECLINED.kind:
        return Answer(MISSING, MISSING, "declined")
    evidence = Evidence(
        shape_of(question).shape.value,
        shown.kind,
        shown.found is not None,
        round(agreement(shown, said), 3),
        question_parts(question, [p.text for p in passages]),
        round(shown.probability, 3),
    )
    if shown.kind == "unsupported":
        return unbacked(shown, evidence)
    confidence = calibration.confidence(evidence)
    if shown.kind == "verdict" and confidence.probability < withhold_below:
        return unsettled(shown, quote, evidence)
    made = with_support(shown.short, shown.cited, shown.kind) if quote else cited(shown.short, shown.cited, shown.kind)
    return dataclasses.replace(made, confidence=confidence, evidence=evidence)


def unbacked(shown: Said, evidence: Evidence) -> Answer:
    """No short answer where no passage holds the model's words: it says the sources do not tell, and names
    what the model wrote, which no source backs (the evidence is kept for the trace). Measured on the fit-side
    corpora, this declines more questions no document answers than it loses right answers."""
    text = f'{MISSING} No source holds the model\'s answer, "{shown.short}".'
    return Answer(text, MISSING, shown.kind, evidence=evidence, withheld=shown.short)


def unsettled(shown: Said, quote: bool, evidence: Evidence) -> Answer:
    """No verdict: the sentence that bears most on the question, with its source (the evidence of the withheld
    verdict is kept for the trace)."""
    found = shown.cited
    if found is None:
        return Answer(f"{UNSETTLED}.", "", "unsettled", evidence=evidence, withheld=shown.short)
    said = f' "{truncate_chars(" ".join(found.sentence.split()), SUPPORT_CHARS)}"' if quote else ""
    text = f"{UNSETTLED}. What the sources say:{said} {found.passage.citation}."
    return Answer(text, "", "unsettled", found, evidence=evidence, withheld=shown.short)
