"""Answer shapes: yes/no questions get a constrained verdict first, then a short reason.

A 135M model rarely starts a yes/no answer with the verdict, so for such questions it is asked for JSON
``{"answer": "yes" | "no" | "insufficient information", "because": "..."}`` (schema-constrained where the
runtime can) and the answer is rendered as ``"Yes. <reason>"``. The keys are named so that the verdict
comes first even where a runtime orders properties by name (llama.cpp's schema-to-grammar converter
does), and the reason is bounded, so a cut-off completion still carries its verdict. The third verdict lets
the model itself declare missing information, which the gate's confidence detection reads. Both the edge
and the cloud use this, so an answer's shape does not depend on where it was made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from shared import prompts
from shared.degeneracy import degenerate_reason
from shared.models.base import GenerationRequest, JsonSchema

VERDICTS = ("yes", "no", "insufficient information")
REASON_CHARS = 120
MISSING = "Insufficient information."

YES_NO_SCHEMA: JsonSchema = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "enum": list(VERDICTS)},
        "because": {"type": "string", "maxLength": REASON_CHARS},
    },
    "required": ["answer", "because"],
}

_AUX = r"(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should)"
_YES_NO = re.compile(rf"^\s*{_AUX}\b|,\s*{_AUX}\s+(?:there|the|it|this|that|both|all|[A-Z'‘\"])", re.IGNORECASE)
_VERDICT = re.compile(r'"answer"\s*:\s*"([^"]*)"')
_REASON = re.compile(r'"because"\s*:\s*"((?:[^"\\]|\\.)*)')


def is_yes_no_question(question: str) -> bool:
    """True when ``question`` asks for a yes/no verdict (starts with, or has a clause starting with, an auxiliary)."""
    return bool(_YES_NO.search(question))


def render_verdict(raw: str) -> str:
    """Turn the model's verdict JSON (possibly cut off) into ``"Yes. reason"``; free text passes through."""
    verdict, reason = _parse(raw)
    if verdict is None:
        return raw.strip()
    if verdict == "insufficient information":
        return MISSING if not reason else f"{MISSING} {reason}"
    head = verdict.capitalize() + "."
    return f"{head} {reason}" if reason else head


def _parse(raw: str) -> tuple[str | None, str]:
    text = raw.strip()
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        verdict = str(value.get("answer", "")).strip().casefold()
        reason = str(value.get("because", "")).strip()
    else:
        match = _VERDICT.search(text)
        if match is None:
            return None, ""
        verdict = match.group(1).strip().casefold()
        found = _REASON.search(text)
        reason = found.group(1).strip() if found else ""
    if verdict not in VERDICTS:
        return None, ""
    return verdict, reason.replace('\\"', '"')


def answer_request(
    question: str,
    context: str,
    n: int,
    max_tokens: int,
    temperature: float,
    seed: int | None,
    *,
    top_p: float = 1.0,
    top_k: int = 0,
    min_p: float = 0.0,
    repeat_penalty: float = 1.0,
) -> GenerationRequest:
    """The request that answers ``question`` from ``context`` (yes/no questions get the verdict schema).
    One answer is always greedy; the sampling values apply to a batch of ``n`` > 1."""
    yes_no = is_yes_no_question(question)
    context = context or "(nothing found)"
    if yes_no:
        prompt = prompts.ANSWER_YES_NO.format(context=context, question=question)
    else:
        prompt = prompts.ANSWER_QUESTION.format(context=context, question=question)
    return GenerationRequest(
        prompt=prompt,
        system=prompts.ANSWER_SYSTEM,
        n=n,
        max_tokens=max_tokens,
        temperature=temperature if n > 1 else 0.0,
        seed=seed,
        top_p=top_p,
        top_k=top_k,
        min_p=min_p,
        repeat_penalty=repeat_penalty,
        json_schema=YES_NO_SCHEMA if yes_no else None,
    )


ANSWER_INSTRUCTIONS = (
    prompts.ANSWER_SYSTEM,
    *(t.replace("{context}", "").replace("{question}", "") for t in (prompts.ANSWER_QUESTION, prompts.ANSWER_YES_NO)),
)
"""The answer prompts' own words (without context and question): an answer repeating them echoes the prompt."""


def degeneracy(question: str, context: str, answers: Sequence[str]) -> list[str | None]:
    """Why each answer must not be shown (shared.degeneracy), None for the ones that read as answers."""
    return [degenerate_reason(a, question, context, ANSWER_INSTRUCTIONS) for a in answers]


def render_answers(question: str, texts: Sequence[str]) -> list[str]:
    """The model's raw completions as answers a person reads."""
    yes_no = is_yes_no_question(question)
    return [render_verdict(t) if yes_no else t.strip() for t in texts]
