"""What the commands print with: names made safe for one line."""

from __future__ import annotations

from shared.core.text import escaped


def one_line(text: str) -> str:
    """``text`` with control characters escaped, so a file name holding a newline stays on its line."""
    return escaped(text)


def shown_text(text: str) -> str:
    """``text`` as a terminal may print it: lines and tabs kept, every other control character (an escape
    sequence a document or a model slipped in) escaped."""
    return escaped(text, "\n\t")


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
