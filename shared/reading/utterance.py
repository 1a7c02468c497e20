"""What a named person said: open questions about a speaker of a chat, a transcript or an interview.

"What does GromHellscream suggest to brighten the area in the evening?" is answered by one of GromHellscream's
own lines. Lines are attributed by their "Name:" prefix (a line without one continues the last speaker's turn);
names match ignoring spaces and case ("Li Hua" is "LiHua:"), and a first name matches a full one ("Wolfgang" is
"WolfgangSchulz:"). Among the speaker's sentences the one sharing most words with the rest of the question is
taken, and the answer is what that sentence adds to the question (shared.reading.short_phrase): "some lanterns or
string lights", not the whole line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from shared.core.text import content_words, sentences
from shared.reading.short_phrase import answer_phrase
from shared.reading.span_reader import Found, Passage, stems

_ASKED = re.compile(
    r"\b(?:does|did|do)\s+(?P<who>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)\s+(?P<verb>say|think|suggest|recommend|propose|"
    r"want|plan|mention|find|feel|like|prefer|share|believe|appreciate|hope|emphasi[sz]e|describe|advise|offer)\b"
)
MIN_WHO_SHARE = 0.5
"""A line answers "who ...?" when it holds at least this share of the question's content words. Fitted on the fit
half's entity questions read from their gold evidence: 0.5 and 0.6 gave 58.9%, 0.3 56.2%, 0.25 54.8% (none:
57.5% with the person-like name rule alone); on the report half entity questions went from 51.2% to 55.0%."""
_NAME = re.compile(r"[A-Z][\w'-]+(?:\s[A-Z][\w'-]+)?")
_OTHERS = re.compile(r"\b(?:you|your|yours|anyone|anybody|everyone|everybody|guys|folks)\b", re.I)
_SPEAKER = re.compile(r"(?:^|\s)(?P<name>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?):\s+(?P<said>\S.*)$", re.S)


def asked_speaker(question: str) -> str | None:
    """The person an open question asks about ("What does X think about ..."), or None."""
    m = _ASKED.search(question)
    return m.group("who") if m else None


def read_utterance(question: str, passages: Sequence[Passage]) -> Found | None:
    """The short phrase of the asked speaker's best matching line (its sentence as support), or None."""
    asked = _ASKED.search(question)
    if asked is None:
        return None
    who = asked.group("who")
    topic = stems(question) - stems(who) - stems(asked.group("verb"))
    best: tuple[int, int, str, str, Passage] | None = None
    at = 0
    for passage in passages:
        for said, sentence in _turns(passage.text, who):
            at += 1
            shared = len(stems(said) & topic)
            if shared and not _asks_others(said) and (best is None or shared > best[0]):
                best = (shared, at, said, sentence, passage)
    if best is None:
        return None
    phrase = answer_phrase(question, best[2])
    return Found(phrase, best[3], best[4], best[0], best[1]) if content_words(phrase) else None


def who_said(question: str, passages: Sequence[Passage]) -> Found | None:
    """For "Who suggested ...?": the speaker of the line that shares most words with the question (at least
    :data:`MIN_WHO_SHARE` of them), never one the question names; None where no line is attributed."""
    topic = stems(question)
    if not topic:
        return None
    best: tuple[int, int, str, str, Passage] | None = None
    at = 0
    for passage in passages:
        for speaker, said, sentence in attributed(passage.text):
            at += 1
            shared = len(stems(said) & topic)
            enough = shared >= MIN_WHO_SHARE * len(topic) and not _named_in(speaker, question)
            if enough and (best is None or shared > best[0]):
                best = (shared, at, speaker, sentence, passage)
    return Found(best[2], best[3], best[4], best[0], best[1]) if best else None


def _named_in(speaker: str, question: str) -> bool:
    key = _key(speaker)
    return any(
        _same_person(speaker, w) or key.startswith(_key(w)) for w in _NAME.findall(question) if len(_key(w)) >= 4
    )


def _asks_others(said: str) -> bool:
    """A question put to the others ("What do you think ...?") is not what the speaker thinks; a suggestion put as
    a question ("How about some lanterns?") is."""
    return said.rstrip(" )\"'”’").endswith("?") and _OTHERS.search(said) is not None


def _turns(text: str, who: str) -> Iterator[tuple[str, str]]:
    """(what was said, the sentence) for each sentence of ``text`` spoken by ``who``."""
    for speaker, said, sentence in attributed(text):
        if _same_person(speaker, who):
            yield said, sentence


def spoken(text: str) -> Iterator[tuple[str, str, str]]:
    """(speaker, what was said, the sentence) for every sentence of ``text`` in order; the speaker is the last
    "Name:" line's, or "" before the first one."""
    speaker = ""
    for sentence in sentences(text):
        m = _SPEAKER.search(sentence)
        said = sentence
        if m:
            speaker, said = m.group("name"), m.group("said")
        yield speaker, said, sentence


def attributed(text: str) -> Iterator[tuple[str, str, str]]:
    """(speaker, what was said, the sentence) for each sentence of ``text`` after its first "Name:" line."""
    return ((speaker, said, sentence) for speaker, said, sentence in spoken(text) if speaker)


def _same_person(speaker: str, who: str) -> bool:
    a, b = _key(speaker), _key(who)
    return a == b or (len(b) >= 4 and a.startswith(b))


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.casefold())
