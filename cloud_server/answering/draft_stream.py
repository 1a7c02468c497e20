"""The cloud model's draft, relayed to the asker as it is decoded, never ahead of the answer guard.

Where an edge's policy protects its texts (``privacy.answers`` paraphrase), a word of the draft leaves only
once ``query.copy_words`` more words follow it and the draft so far copies nothing protected (see answer_guard):
a copied run, a near-copy or a repeated short sentence is then caught before any of its words is sent. At the
first copy the relay stops; the guarded answer that ends every stream is the one to show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.core.model_api import TextSink
from shared.core.verbatim import CopyIndex

_WORD = re.compile(r"\S+")


class DraftRelay:
    """A :data:`~shared.core.model_api.TextSink` passing the draft on to ``out`` as far as the guard allows."""

    def __init__(self, question: str, protected: Sequence[str], copy_words: int, sentence: int, out: TextSink) -> None:
        self._question = question
        self._index = CopyIndex(protected, copy_words, sentence)
        self._lag = copy_words
        self._out = out
        self._draft = ""
        self._sent = 0
        self._words = 0
        self.stopped = False
        """The draft copied a protected text: nothing more is relayed."""

    def __call__(self, piece: str) -> None:
        if self.stopped:
            return
        self._draft += piece
        if self._index.empty:  # every text read may be quoted to the asker
            self._out(piece)
            self._sent = len(self._draft)
            return
        starts = [m.start() for m in _WORD.finditer(self._draft)]
        if len(starts) == self._words:  # no new word begun: nothing new to check
            return
        self._words = len(starts)
        if self._index.copies(self._draft, given=self._question):
            self.stopped = True
            return
        if len(starts) > self._lag and starts[-self._lag] > self._sent:
            self._out(self._draft[self._sent : starts[-self._lag]])
            self._sent = starts[-self._lag]
