"""Short phrases that answer an open question: what a sentence adds to the question, cut from the model's samples or
from a named speaker's own line.

A small model answers "What is the building's policy that Adam reminds Li Hua about?" with "The building's policy
that Adam reminds Li Hua about is a recycling policy." The answer is what the sentence adds to the question: the
restated words are skipped, then the first clause of the rest is kept ("recycling policy"). Among several samples
the phrase the others agree with most (content words they share) is chosen, so one sample's stray phrase does not
win.

"What does GromHellscream suggest to brighten the area in the evening?" is answered by one of GromHellscream's own
lines in a chat, a transcript or an interview. Lines are attributed by their "Name:" prefix (a line without one
continues the last speaker's turn). Names match ignoring spaces and case ("Li Hua" is "LiHua:"), and a first name
matches a full one ("Wolfgang" is "WolfgangSchulz:"). Of the speaker's sentences, the one sharing most words with
the rest of the question is taken, and the answer is its phrase: "some lanterns or string lights", not the line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from shared.core.text import content_words, sentences
from shared.reading.answer_format import declares_missing
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


PHRASE_WORDS = 10
"""Longest phrase kept."""
_LEAD = frozenset(
    "the a an answer is was are were that to be will would of about for in on he she they it his her its their "
    "has have had did does do this these those so by at with as question according context who what which where "
    "when how why i we me my our can could should might may must just really think guess maybe also definitely "
    "totally probably personally honestly he's she's it's they're i'm we're i've i'll i'd plus oh ooh wow well yeah "
    "yep hey hi hello thanks thank haha sure okay ok anyway".split()
)
"""Words skipped before the phrase, besides the question's own (with a chat's discourse markers: "Plus, they ...",
"Ooh, ...", "Thanks, ...")."""
_CLAUSE_END = re.compile(
    r"[.;:!?\n(\[]|,\s|\s(?:which|because|who|whom|where|while|since|but|so that)\s", re.IGNORECASE
)
_WORD = re.compile(r"[\w'’-]+")
_VERDICT = re.compile(r"^(?:yes|no|yeah|sure)\s*,\s*(?=\w)", re.IGNORECASE)
"""A verdict opening an answer to an open question ("Yes, having friends over is fine"): what follows answers."""
_GREETING = re.compile(r"^(?:[\w'’-]+[ ,]*){1,4}!+\s*(?:[^\w\s]+\s*)?")
"""A short exclamation opening a chat line ("Great choice! ", "Hey Li Hua! 😊 ")."""


_SUFFIXES = ("'s", "’s", "ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """The word's first five letters once a plural, possessive or tense ending is cut ("says" and "say", "plans"
    and "planning", "measured" and "measure" meet)."""
    w = word.casefold()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            if suffix in ("ing", "ed") and w[-1] == w[-2]:  # "planning", "planned": "plan"
                w = w[:-1]
            break
    return w[:5]


def answer_phrase(question: str, answer: str) -> str:
    """What ``answer`` adds to ``question``, up to its first clause's end, without the question's words it starts
    or ends with ('' when nothing is added or the answer declines)."""
    text = answer.strip()
    if not text or declares_missing(text):
        return ""
    asked = {_stem(w) for w in _WORD.findall(question)}
    words = list(_WORD.finditer(text))
    i = 0
    while i < len(words) and (_restated(words, i, asked) or _lead(words[i].group())):
        i += 1
    if i == len(words):
        return ""
    rest = text[words[i].start() :]
    if ":" in text[: words[i].start()]:  # a chat line ("Hailey: Love that idea! Matcha would be ...")
        rest = _past_greeting(rest)
    rest = _VERDICT.sub("", rest, count=1)
    if end := _CLAUSE_END.search(rest):
        rest = rest[: end.start()]
    rest = _without_restated_tail(rest, asked)
    return " ".join(rest.split()[:PHRASE_WORDS]).strip(" ,.'\"“”‘’")


def _lead(word: str) -> bool:
    return word.casefold().replace("’", "'") in _LEAD


def _restated(words: Sequence[re.Match[str]], i: int, asked: set[str]) -> bool:
    """Whether word ``i`` restates the question: one of its words, or a name going on from one ("Adam Smith says"
    when the question names Adam)."""
    word = words[i].group()
    if _stem(word) in asked:
        return True
    before = words[i - 1].group() if i else ""
    return word[:1].isupper() and before[:1].isupper() and before.casefold() not in _LEAD and _stem(before) in asked


def _past_greeting(rest: str) -> str:
    """``rest`` without an opening exclamation of a few words ("Love that idea! ") when more follows it."""
    m = _GREETING.match(rest)
    return rest[m.end() :] if m and _WORD.search(rest[m.end() :]) else rest


def _without_restated_tail(phrase: str, asked: set[str]) -> str:
    """``phrase`` without a trailing restatement of the question that opens with a function word: "string lights
    to brighten the area" -> "string lights" ("recycling policy" keeps "policy": no function word opens it)."""
    words = list(_WORD.finditer(phrase))
    j = len(words)
    while j > 1 and (_stem(words[j - 1].group()) in asked or words[j - 1].group().casefold() in _LEAD):
        j -= 1
    tail = [w.group().casefold() for w in words[j:]]
    cut = next((j + k for k, w in enumerate(tail) if w in _LEAD), len(words))
    return phrase[: words[cut - 1].end()] if 0 < cut < len(words) else phrase


def agreed_phrase(question: str, answers: Sequence[str]) -> str:
    """The phrase of ``answers`` whose content words the other samples' phrases share most (ties: the shorter,
    then the earlier); '' when no sample adds anything to the question."""
    phrases = [p for p in (answer_phrase(question, a) for a in answers) if content_words(p)]
    words = [set(content_words(p)) for p in phrases]
    best: tuple[tuple[int, int, int], str] | None = None
    for i, phrase in enumerate(phrases):
        shared = sum(len(words[i] & words[j]) for j in range(len(phrases)) if j != i)
        key = (shared, -len(phrase.split()), -i)
        if best is None or key > best[0]:
            best = (key, phrase)
    return best[1] if best else ""
