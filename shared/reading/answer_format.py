"""Answer requests by the question's shape (shared.reading.question_shape), and the model's output as text a person
reads.

Closed questions are answered by choice: the model is asked for JSON ``{"answer": <one of the options>,
"because": "..."}``, schema-constrained where the runtime can (llama.cpp turns the schema into a grammar),
with the options a yes/no verdict, the two options the question names, or the entity names found in the
evidence; ``insufficient information`` is always an option, so the model itself can decline and the gate's
refusal detection reads it. The keys are named so that the verdict comes first even where a runtime orders
properties by name, and the reason is bounded, so a cut-off completion still carries its verdict. Open
questions get one short free-text sentence. Both the edge and the cloud use this, so an answer's shape does not
depend on where it was made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.core import prompts
from shared.core.model_api import GenerationRequest, JsonSchema
from shared.reading.degeneracy import degenerate_reason

DECLINE = "insufficient information"
VERDICTS = ("yes", "no", DECLINE)
REASON_CHARS = 120
MISSING = "Insufficient information."


def choice_schema(options: Sequence[str], reason: bool = True) -> JsonSchema:
    """The JSON schema of a choice among ``options`` (and the decline), with a bounded reason after it unless
    ``reason`` is False (the choice comes first, so leaving the reason out does not change how it is made)."""
    properties: dict[str, object] = {"answer": {"type": "string", "enum": [*dict.fromkeys([*options, DECLINE])]}}
    if reason:
        properties["because"] = {"type": "string", "maxLength": REASON_CHARS}
    return {"type": "object", "properties": properties, "required": list(properties)}


_DECLINES = re.compile(
    r"insufficient information|not enough information|no information|not (?:mentioned|provided|stated|specified|"
    r"given|available|included|clear)|does not (?:say|mention|provide|contain|specify|state)|doesn't (?:say|mention|"
    r"provide|contain)|cannot (?:be )?(?:determine|answer|find|tell)|can't (?:determine|answer|tell)|unable to|"
    r"i (?:do not|don't) know|unknown|no mention|not sure|unclear|no (?:context|data|details)",
    re.IGNORECASE,
)


def declares_missing(answer: str) -> bool:
    """True when the answer says it lacks the information, or is empty (model-free): the gate counts such an
    answer as a refusal, and the reader neither shows nor votes with it."""
    return bool(_DECLINES.search(answer)) or not answer.strip()


_VERDICT = re.compile(r'"answer"\s*:\s*"([^"]*)"')
_REASON = re.compile(r'"because"\s*:\s*"((?:[^"\\]|\\.)*)')


def render_verdict(raw: str, options: Sequence[str] = VERDICTS) -> str:
    """Turn the model's choice JSON (possibly cut off) into ``"Yes. reason"`` (or ``"Sam Altman. reason"``); free
    text passes through."""
    verdict, reason = _parse(raw, options)
    if verdict is None:
        return raw.strip()
    if verdict.casefold() == DECLINE:
        return MISSING if not reason else f"{MISSING} {reason}"
    head = verdict[:1].upper() + verdict[1:] + "."
    return f"{head} {reason}" if reason else head


def _parse(raw: str, options: Sequence[str]) -> tuple[str | None, str]:
    text = raw.strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        verdict = str(value.get("answer", "")).strip()
        reason = str(value.get("because", "")).strip()
    else:
        match = _VERDICT.search(text)
        if match is None:
            return None, ""
        verdict = match.group(1).strip()
        found = _REASON.search(text)
        reason = found.group(1).strip() if found else ""
    allowed = {o.casefold(): o for o in (*options, DECLINE)}
    if verdict.casefold() not in allowed:
        return None, ""
    verdict = allowed[verdict.casefold()]
    return verdict, reason.replace('\\"', '"')


@dataclass(frozen=True)
class Sampling:
    """How the model samples its answers to one question (one answer is always greedy)."""

    n: int
    max_tokens: int
    temperature: float
    seed: int | None
    top_p: float = 1.0
    top_k: int = 0
    min_p: float = 0.0
    repeat_penalty: float = 1.0
    reason: bool = True
    """After a choice, a short reason (about 15 decoded tokens per sample)."""


def answer_request(question: str, context: str, how: Sampling, options: Sequence[str] = ()) -> GenerationRequest:
    """The request that answers ``question`` from ``context``: a choice among ``options`` when given (see
    :func:`answer_options`; without ``how.reason``: the choice alone, no reason after it), else one short free-text
    sentence. One answer is always greedy; the sampling values apply to a batch of ``how.n`` > 1."""
    context = context or "(nothing found)"
    if options:
        listed = "; ".join(options)
        prompt = prompts.ANSWER_CHOICE.format(context=context, question=question, options=listed)
    else:
        prompt = prompts.ANSWER_QUESTION.format(context=context, question=question)
    return GenerationRequest(
        prompt=prompt,
        system=prompts.ANSWER_SYSTEM,
        n=how.n,
        max_tokens=how.max_tokens,
        temperature=how.temperature if how.n > 1 else 0.0,
        seed=how.seed,
        top_p=how.top_p,
        top_k=how.top_k,
        min_p=how.min_p,
        repeat_penalty=how.repeat_penalty,
        json_schema=choice_schema(options, how.reason) if options else None,
    )


ANSWER_INSTRUCTIONS = (
    prompts.ANSWER_SYSTEM,
    *(
        t.replace("{context}", "").replace("{question}", "").replace("{options}", "")
        for t in (prompts.ANSWER_QUESTION, prompts.ANSWER_CHOICE)
    ),
)
"""The answer prompts' own words (without context and question): an answer repeating them echoes the prompt."""


def degeneracy(question: str, context: str, answers: Sequence[str]) -> list[str | None]:
    """Why each answer must not be shown (shared.reading.degeneracy), None for the ones that read as answers."""
    return [degenerate_reason(a, question, context, ANSWER_INSTRUCTIONS) for a in answers]


def render_answers(texts: Sequence[str], options: Sequence[str] = ()) -> list[str]:
    """The model's raw completions as answers a person reads (``options``: those of a choice request)."""
    return [render_verdict(t, options) if options else t.strip() for t in texts]
