"""Model-free readers of facts a documentation user asks for: a version, a licence, a command.

A question asking which version, which licence or which command is answered with the span of the evidence that
states it, never with the most frequent name of the passages nor a model's paraphrase. Each reader takes the
sentences (or lines) that best match the question's content words and returns the first span of the wanted kind
among them, in a passage that names what the question names. Where the question asks for such a fact and no such
passage states one, the reader says so and the answer declines instead of offering a fragment.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from enum import StrEnum

from shared.core.candidates import question_terms
from shared.core.text import content_words, occurs_in, sentences
from shared.reading.span_reader import Found, Passage, stems

READER = "fact"
"""The reader name an answer of this module carries."""


class FactKind(StrEnum):
    VERSION = "version"
    LICENCE = "licence"
    COMMAND = "command"


_WH_FEW = r"^\W*(?:(?:in|on|for|from|with|under)\s+)?(?:what|which)\s+(?:is\s+|are\s+|was\s+)?(?:\w+\s+){0,3}?"
"""The question's first words: what/which, then at most three words before the thing asked for."""
_ASKS_VERSION = re.compile(_WH_FEW + r"versions?\b|\bversion number\b", re.IGNORECASE)
_ASKS_LICENCE = re.compile(
    r"\b(?:what|which)\b[^?]*\blicen[cs]e\b|\blicen[cs]ed under\b|\bunder (?:what|which)\b[^?]*\blicen[cs]e",
    re.IGNORECASE,
)
_ASKS_COMMAND = re.compile(
    _WH_FEW + r"commands?\b|\bhow (?:do|can|should|would) (?:i|you|we|one)\b[^?]*"
    r"\b(?:install|run|start|launch|test|upgrade|serve|invoke)\b",
    re.IGNORECASE,
)
_VERSION = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+){0,2}(?:(?:a|b|rc|\.post|\.dev)\d+)?)(?![\w.]*\d)")
_LICENCE = re.compile(
    r"\b(?:Apache(?:[- ]License)?(?:,? (?:version |v)?2\.0|-2\.0)?|MIT|BSD[- ](?:[234][- ]Clause|License)|BSD|"
    r"(?:L|A)?GPL(?:-?v?[23](?:\.0)?(?:-only|-or-later|\+)?)?|MPL[- ]?2\.0|ISC|PSF(?:-2\.0)?|Unlicense|CC0(?:-1\.0)?|"
    r"Python Software Foundation License)\b"
)
_TOOLS = frozenset(
    "pip pip3 python python3 uv uvx conda pipx poetry npm npx docker git make pytest ruff uvicorn fastapi typer "
    "rich tqdm curl sudo apt apt-get brew".split()
)
"""Command words taken as a command's first word (besides any word of the question: a package's own CLI)."""
COMMAND_WORDS = 12
"""A command longer than this many words is a line of prose, not one command."""
_WORDS = re.compile(r"[\w.+-]+")
_TICKED = re.compile(r"`([^`\n]+)`")
_COMMENT = re.compile(r"\s(?:#|//)\s.*$")
_BARE = re.compile(r"[a-z][\w.-]*(?:\s+(?:--?[\w.=-]+|[a-z0-9][\w./:=@-]*)){1,6}")
"""A line that is only a lower-case tool name and a few arguments ("accelerate config", "hf auth login")."""
_PROSE = re.compile(r"[.!?,;]\s+[A-Za-z]|\b(?:the|and|your|you|this|that|is|are)\b", re.IGNORECASE)
_LETTERS = re.compile(r"[A-Za-z]{2}")
_FENCE = re.compile(r"```\w*|::|~~~\w*")
_LINK_TARGET = re.compile(r"\]\([^)\n]*\)")
_CLAUSE_END = re.compile(r"[,;]|\s[-–—]\s|\s\(?see\s", re.IGNORECASE)
_LICENCE_FIELD = re.compile(r"\blicen[cs]e\W{0,3}:\W*([^\n]{2,80}?)\.?\s*$", re.IGNORECASE)
_ACTIONS = frozenset("run runs install installs start starts launch test upgrade serve invoke use add adds".split())
"""Words of a question that say what a command does, never its tool."""
_VERSION_WORDS = frozenset({"version", "versions", "release", "released", "v", "ver"})
_FRAME = frozenset(
    "under licence license licenced licensed licences licenses version versions release released command commands "
    "distributed described shipped published current latest which what".split()
)
"""Words that frame a version or licence question whatever it is about (never its subject)."""


def fact_kind(question: str) -> FactKind | None:
    """Which fact ``question`` asks for, if it asks for a version, a licence or a command."""
    if _ASKS_COMMAND.search(question):
        return FactKind.COMMAND
    if _ASKS_LICENCE.search(question):
        return FactKind.LICENCE
    if _ASKS_VERSION.search(question):
        return FactKind.VERSION
    return None


def subject_words(question: str) -> list[str]:
    """What a fact question is about where it names nothing in capitals ("Under which licence is h11
    distributed?" -> h11): its content words but the words that frame any such question."""
    return [w for w in content_words(question) if w not in _FRAME]


def read_fact(kind: FactKind, question: str, passages: Sequence[Passage]) -> Found | None:
    """The span of ``kind`` in the sentence (or line) that best matches ``question``, in a passage that names what
    the question names (its capitalised names, else for a version or licence its :func:`subject_words`, where it
    has any; a command's question words say what it does, not what it is about); None when no such sentence
    states one: a licence line of another package is never the asked one's. A command's match counts
    the lines of prose before it too: a command follows the prose that says what it does ("To configure, run:")."""
    terms = stems(question) - {"versi", "licen", "comma", "which", "what"}
    names = question_terms(question)[0] or (subject_words(question) if kind != FactKind.COMMAND else [])
    scored: list[tuple[float, int, Found]] = []
    at = 0
    for passage in passages:
        if names and not any(occurs_in(n, passage.text) for n in names):
            continue
        lines = sentences(passage.text)
        tools = command_tools(question, passage.text) if kind == FactKind.COMMAND else frozenset()
        page = 0.5 * len(stems(passage.text) & terms) / max(len(terms), 1)  # the passage's own match, once
        for i, sentence in enumerate(lines):
            at += 1
            span, bonus = _span(kind, sentence, question, tools)
            if span:
                before = stems(" ".join(_prose_before(lines, i))) if kind == FactKind.COMMAND else set()
                here = len(stems(f"{sentence} {span}") & terms) + 0.5 * len(before & terms)
                overlap = here + bonus + page
                scored.append((overlap, -at, Found(span, sentence, passage, overlap, at)))
    if not scored:
        return None
    scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
    return scored[0][2]


def _prose_before(lines: Sequence[str], i: int) -> list[str]:
    """The (at most) four lines before line ``i`` that have words (not code fences or markers: "```bash", "::")."""
    before = [line for line in lines[max(i - 8, 0) : i] if not _FENCE.fullmatch(line.strip()) and _LETTERS.search(line)]
    return before[-4:]


def _span(kind: FactKind, sentence: str, question: str, tools: frozenset[str] = frozenset()) -> tuple[str, float]:
    """The span of ``kind`` the sentence states, and how plainly it states the asked one (added to its match)."""
    if kind == FactKind.VERSION:
        return _version(sentence, question)
    if kind == FactKind.LICENCE:
        return _licence(sentence), 0.0
    return _command(sentence, question, tools)


def _licence(sentence: str) -> str:
    """The licence a sentence states: a "License:" field's whole value where it names one ("The MIT License (MIT)",
    "BSD-3-Clause AND MIT"), else the first licence named."""
    if field := _LICENCE_FIELD.search(sentence):
        # the value without a link's target, markup or what follows it ("MIT, see the LICENSE file")
        value = _CLAUSE_END.split(_LINK_TARGET.sub("", field.group(1)), maxsplit=1)[0].strip(" .*_`[]")
        if _LICENCE.search(value):
            return value
    licence = _LICENCE.search(sentence)
    return licence.group(0).strip() if licence else ""


def _version(sentence: str, question: str) -> tuple[str, float]:
    """The sentence's version that is not the question's own: one right after "version" or after a name the
    question names is the asked one (bonus 2); one right after another name ("Python 3.10+") is that name's."""
    best, best_bonus = "", -math.inf
    names = {n.casefold() for n in question_terms(question)[0]}
    for m in _VERSION.finditer(sentence):
        version = m.group(1)
        if occurs_in(version, question):
            continue
        before = _WORDS.findall(sentence[max(m.start() - 40, 0) : m.start()])
        last = before[-1].casefold() if before else ""
        if last in _VERSION_WORDS or last in names or (len(before) > 1 and before[-2].casefold() in names):
            bonus = 2.0
        elif before and before[-1][:1].isupper():
            bonus = -1.0
        else:
            bonus = 0.0
        if bonus > best_bonus:
            best, best_bonus = version, bonus
    return (best, best_bonus) if best else ("", 0.0)


def _command(sentence: str, question: str, tools: frozenset[str]) -> tuple[str, float]:
    """The command a line states: after a shell prompt, in backticks, or the whole line where it reads as one (one
    of ``tools`` and its arguments); cut at a comment or the next prompt. Of several, the one sharing most
    question words."""
    found: list[str] = []
    for part in re.split(r"(?:^|\s)\$\s", sentence):
        found.extend(_commands_in(part.strip(), tools))
    if not found:
        return "", 0.0
    wanted = stems(question)
    asked = [w.casefold() for w in _WORDS.findall(question) if len(w) >= 3]
    best = max(found, key=lambda c: (len(stems(c) & wanted) + _says(c, asked), -found.index(c)))
    return best, float(_says(best, asked))


def _says(command: str, asked: Sequence[str]) -> int:
    """How many of a command's words after its tool say what the question asks ("config" for "configure",
    "login" for "logs in", "add" for "adds"): one is the start of the other, at least three letters."""
    words = {w.casefold() for w in command.split()[1:] if w.isalpha() and len(w) >= 3}
    return sum(1 for w in words if any(a.startswith(w) or w.startswith(a) for a in asked))


def command_tools(question: str, passage: str) -> frozenset[str]:
    """The words a command may start with: well-known tools, a word of the question (a package's own CLI), and
    the first word of any code span the passage writes in backticks (the CLI it documents)."""
    ticked = {m.group(1).split()[0] for m in _TICKED.finditer(passage) if m.group(1).split()}
    asked = {w.casefold() for w in _WORDS.findall(question)} - _ACTIONS
    return _TOOLS | asked | {t for t in ticked if t[:1].islower()}


def _commands_in(text: str, tools: frozenset[str]) -> list[str]:
    out = [" ".join(m.group(1).split()) for m in _TICKED.finditer(text) if _is_command(m.group(1), tools)]
    line = _COMMENT.sub("", text).strip().rstrip(".`:")
    if _is_command(line, tools) and (line.split()[0] in _TOOLS or _BARE.fullmatch(line)):
        out.append(" ".join(line.split()))
    return out


def _is_command(text: str, tools: frozenset[str]) -> bool:
    words = text.split()
    if not words or not words[0][:1].islower() or words[0] not in tools:
        return False  # a command starts with its tool's name, written as typed
    if len(words) == 1 and words[0] not in _TOOLS:
        return False  # one word is a command only when it is a well-known tool ("pytest"), not a CLI's name
    return len(words) <= COMMAND_WORDS and not _PROSE.search(text)
