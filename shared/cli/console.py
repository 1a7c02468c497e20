"""What the commands print with: names made safe for one line."""

from __future__ import annotations


def one_line(text: str) -> str:
    """``text`` with control characters escaped, so a file name holding a newline stays on its line."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
