"""What the commands print with: names made safe for one line."""

from __future__ import annotations


def one_line(text: str) -> str:
    """``text`` with control characters escaped, so a file name holding a newline stays on its line."""
    return _escaped(text, "")


def shown_text(text: str) -> str:
    """``text`` as a terminal may print it: lines and tabs kept, every other control character (an escape
    sequence a document or a model slipped in) escaped."""
    return _escaped(text, "\n\t")


class DraftPrinter:
    """Prints an answer's draft as it comes (after a heading), then closes its line before the answer."""

    def __init__(self, heading: str = "draft: ") -> None:
        self._heading = heading
        self.printed = False

    def __call__(self, piece: str) -> None:
        if not self.printed:
            print(self._heading, end="", flush=True)
            self.printed = True
        print(shown_text(piece), end="", flush=True)

    def close(self) -> None:
        if self.printed:
            print("\n", flush=True)


def _escaped(text: str, kept: str) -> str:
    """``text`` with every character that is not printable, but those in ``kept``, written as its escape."""
    return "".join(c if c.isprintable() or c in kept else c.encode("unicode_escape").decode("ascii") for c in text)
