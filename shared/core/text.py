"""Model-free text utilities: name normalisation, words and content words, sentence splitting, JSON extraction."""

from __future__ import annotations

import itertools
import json
import re
import unicodedata

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
CONTENT_STOP_WORDS = frozenset(
    "a an the and or but if then of to in on at by for with from as is are was were be been being it its this that "
    "these those there their they them he she his her we our you your i not no yes do does did has have had can "
    "could will would should may might about into over after before than also which who whom what when where why "
    "how all any both each more most other some such only own same so too very just because said says".split()
)
"""Stop words of content_words (answers, questions, evidence): function words and a few reporting verbs."""
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$")
# A sentence ends after . ! or ? (and any closing quotes/brackets) before whitespace and a capital, or at a line
# break. Group 1 is the whitespace between two sentences.
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*(\s+)(?=[\"'“‘(\[]?[A-Z0-9])|(\n\s*)")


def normalise_name(name: str) -> str:
    """Key under which entity names merge: NFKC, case-folded, single spaces, no edge punctuation."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = text.replace("’", "'")
    text = _SPACE.sub(" ", text).strip()
    text = _EDGE_PUNCT.sub("", text)
    if text.startswith("the "):
        text = text[4:]
    return text


def clean_text(text: str) -> str:
    """Collapse runs of whitespace to one space."""
    return _SPACE.sub(" ", text).strip()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences (or lines) of ``text``, whitespace trimmed, empty ones dropped."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        gap = 1 if match.group(1) is not None else 2
        spans.append((start, match.start(gap)))
        start = match.end(gap)
    spans.append((start, len(text)))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see :func:`sentence_spans`)."""
    return [text[s:e] for s, e in sentence_spans(text)]


def occurs_in(name: str, text: str) -> bool:
    """True when ``name`` occurs in ``text`` as whole words, ignoring case and runs of whitespace."""
    needle = clean_text(name)
    if not needle:
        return False
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(part) for part in needle.split(" ")) + r"(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def first_json_value(text: str) -> str | None:
    """The first complete JSON object or array in ``text``, as text, or None."""
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                _, end = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                continue
            return text[i:end]
    return None


def truncate_chars(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    cut = text[: max(0, limit - 1)].rsplit(" ", 1)[0]
    return cut + "…"


_SPELLINGS = ((re.compile(r"(?i)(licen)c(e[sd]?)$"), r"\1s\2"), (re.compile(r"(?i)(licen)s(e[sd]?)$"), r"\1c\2"))
"""British and American spellings of a word documentation writes both ways ("licence", "license")."""


def spellings(term: str) -> tuple[str, ...]:
    """``term`` and its other spelling, where it has one documentation writes too."""
    other = {pattern.sub(repl, term) for pattern, repl in _SPELLINGS} - {term}
    return (term, *sorted(other))


def excerpt(text: str, terms: list[str], max_chars: int) -> str:
    """``text`` itself when it fits in ``max_chars``; otherwise its sentences that mention the most question
    terms, kept in text order, within ``max_chars`` (so more sources fit in a small model's context). A term counts
    the less the more sentences hold it, and in either spelling (:func:`spellings`)."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    spans = sentence_spans(text)
    parts = [text[s:e] for s, e in spans]
    wanted = [spellings(t) for t in terms if t]
    holds = [[any(occurs_in(f, part) for f in forms) for forms in wanted] for part in parts]
    # a term most sentences hold (the page's own name) tells them apart less than one a few hold ("License")
    rarity = [1.0 / max(sum(h[j] for h in holds), 1) for j in range(len(wanted))]
    held = [sum(r for r, h in zip(rarity, hold, strict=True) if h) for hold in holds]
    ranked = sorted(range(len(parts)), key=lambda i: (-held[i], i))
    keep: list[int] = []
    used = 0
    for i in ranked:
        if used + len(parts[i]) + 1 <= max_chars:
            keep.append(i)
            used += len(parts[i]) + 1
    if not keep:
        return truncate_chars(parts[ranked[0]] if parts else text, max_chars)
    kept = sorted(keep)
    # a line break between two kept sentences stays one (commands, list items and table rows stay lines)
    joins = ["\n" if "\n" in text[spans[a][1] : spans[b][0]] else " " for a, b in itertools.pairwise(kept)]
    return "".join(parts[i].strip() + sep for i, sep in zip(kept, [*joins, ""], strict=True))


def words(text: str) -> list[str]:
    """Lower-cased word tokens."""
    return _WORD.findall(text.casefold())


def content_words(text: str) -> list[str]:
    """Words that carry content (not stop words, not single characters)."""
    return [w for w in words(text) if len(w) > 2 and w not in CONTENT_STOP_WORDS]


def escaped(text: str, kept: str = "") -> str:
    """``text`` with every character that is not printable, but those in ``kept``, written as its escape (a newline
    as ``\\n``, an escape sequence's ESC as ``\\x1b``): safe on one line of a log or a terminal."""
    return "".join(c if c.isprintable() or c in kept else c.encode("unicode_escape").decode("ascii") for c in text)
