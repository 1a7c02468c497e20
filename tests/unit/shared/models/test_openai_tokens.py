"""What a model server says of its tokens is believed only when it holds together: finite log-probabilities of at
most 0 whose tokens spell the text."""

from __future__ import annotations

import math
from types import SimpleNamespace

from shared.models.openai_backend import checked_tokens, completion_of


def _entries(*pairs: tuple[str, float]) -> list[SimpleNamespace]:
    return [SimpleNamespace(token=t, logprob=lp) for t, lp in pairs]


def test_tokens_that_spell_the_text_with_sane_log_probabilities_are_kept() -> None:
    assert checked_tokens("Yes.", _entries(("Yes", -0.1), (".", -0.5))) == ((-0.1, -0.5), ("Yes", "."))


def test_the_end_of_the_answer_llama_server_reports_is_not_a_written_token() -> None:
    """Measured: llama-server sent "Yes" (0.989) and an empty end token (0.871); in process "Yes" (0.983) alone."""
    end = math.log(0.871)
    assert checked_tokens("Yes", _entries(("Yes", -0.011), ("", end))) == ((-0.011,), ("Yes",))
    assert checked_tokens("", _entries(("", end))) is None, "no written token: no probabilities"


def test_a_lying_or_broken_server_gives_no_probabilities_rather_than_wrong_ones() -> None:
    assert checked_tokens("Yes.", _entries(("Yes", 0.3), (".", -0.5))) is None, "a log-probability above 0"
    assert checked_tokens("Yes.", _entries(("Yes", -math.inf), (".", -0.5))) is None
    assert checked_tokens("Yes.", _entries(("Yes", math.nan), (".", -0.5))) is None
    assert checked_tokens("Yes.", _entries(("No", -0.1), (".", -0.5))) is None, "tokens that do not spell the text"
    assert checked_tokens("Yes.", [SimpleNamespace(token=1, logprob=-0.1)]) is None
    assert checked_tokens("Yes.", []) is None, "a server that sends none"


def test_a_completion_carries_probabilities_only_where_every_text_has_them() -> None:
    kept = completion_of(["Yes"], [((-0.1,), ("Yes",))], 10, 1)
    assert kept.probability_at(0, 0) == math.exp(-0.1)
    mixed = completion_of(["Yes", "No"], [((-0.1,), ("Yes",)), None], 10, 2)
    assert mixed.token_logprobs == () and mixed.probability(0) is None
