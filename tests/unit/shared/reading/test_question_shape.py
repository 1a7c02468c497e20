"""Question shapes: a question starting with a question word is never a yes/no question."""

from __future__ import annotations

import pytest

from shared.reading.plan import Shape, shape_of

CASES = [
    ("Does the TechCrunch article report that Google paid Apple?", Shape.YES_NO),
    ("After the Verge report, did Fortune say the same about FTX?", Shape.YES_NO),
    ("Which company, covered by TechCrunch and The Verge, is known for its search engine?", Shape.ENTITY),
    ("Who is the individual that, according to Fortune, is facing a criminal trial?", Shape.ENTITY),
    ("In which game, covered by Polygon, can you smash stuff with a Barbarian?", Shape.ENTITY),
    ("When does Li Hua plan to celebrate Chinese Lunar New Year?", Shape.DATE),
    ("What time does Li Hua check in with Adam?", Shape.DATE),
    ("How much discount is Hailey willing to give?", Shape.NUMBER),
    ("What does Adam say about having friends over?", Shape.OPEN),
    ("Was the portrayal of Bayern Munich's superiority consistent or inconsistent?", Shape.CHOICE),
    ("Was Carter-Vickers praised before or after Erik ten Hag's team held its lead?", Shape.CHOICE),
]


@pytest.mark.parametrize(("question", "shape"), CASES)
def test_shapes(question: str, shape: Shape) -> None:
    assert shape_of(question).shape == shape


def test_choice_options_and_who_questions() -> None:
    assert shape_of("Is it consistent or inconsistent?").options == ("consistent", "inconsistent")
    assert shape_of("Did the title go to the Lakers or the Celtics?").options == ("Lakers", "Celtics")
    assert shape_of("Who founded FTX?").shape == Shape.ENTITY
