"""The longest run of words an answer shares with protected texts: what the extraction benchmark measures."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from shared.core.verbatim import holds_run, words


def longest_shared_run(text: str, sources: Iterable[str], supplied: Sequence[str] = ()) -> int:
    """The longest run of normalised words ``text`` shares exactly with any of ``sources`` that no text of
    ``supplied`` (e.g. the prompt, the asker's own documents) holds: a measurement, not a guard (it sees every
    length, not only the runs of ``n`` words shared.core.verbatim.CopyIndex finds)."""
    w = words(text)
    given = [words(t) for t in supplied]
    best = 0
    for source in sources:
        s = words(source)
        previous = [0] * (len(s) + 1)
        for i, word in enumerate(w):
            current = [0] * (len(s) + 1)
            longest = 0
            for j, other in enumerate(s, 1):
                if word == other:
                    current[j] = previous[j - 1] + 1
                    longest = max(longest, current[j])
            if longest > best and not any(holds_run(w[i - longest + 1 : i + 1], g) for g in given):
                best = longest
            previous = current
    return best
