"""Versions, licences and commands are read as the span that states them, or declined."""

from __future__ import annotations

import pytest

from shared.core.text import excerpt
from shared.reading.compose import compose
from shared.reading.fact_reader import FactKind, fact_kind
from shared.reading.plan import plan_reading
from shared.reading.span_reader import Passage

README = Passage(
    1,
    "Package FastAPI, version 0.165.0. License: MIT.\nFastAPI is a modern web framework built on Starlette.\n"
    '$ pip install "fastapi[standard]"\nRun the server with `fastapi dev main.py`. It requires Python 3.9+.',
    "web:fastapi",
)
SERVER = Passage(
    2,
    "Package Uvicorn, version 0.54.0. License: BSD-3-Clause. Run `uvicorn main:app --port 8000`.",
    "web:uvicorn",
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What version of FastAPI is described?", FactKind.VERSION),
        ("What is the minimum Python version FastAPI requires?", FactKind.VERSION),
        ("Under which licence is Uvicorn distributed?", FactKind.LICENCE),
        ("What command installs FastAPI?", FactKind.COMMAND),
        ("How do I run Uvicorn?", FactKind.COMMAND),
        ("Which company is releasing a new version of their product?", None),
        ("Which company signed a licensing deal with the league?", None),
    ],
)
def test_the_fact_asked_for(question: str, kind: FactKind | None) -> None:
    assert fact_kind(question) == kind


@pytest.mark.parametrize(
    ("question", "short"),
    [
        ("What version of FastAPI is described?", "0.165.0"),
        ("Which Uvicorn version is described?", "0.54.0"),
        ("What is the minimum Python version FastAPI requires?", "3.9"),
        ("Under which licence is Uvicorn distributed?", "BSD-3-Clause"),
        ("What licence does FastAPI use?", "MIT"),
        ("What command installs FastAPI with its standard extras?", 'pip install "fastapi[standard]"'),
        ("Which command starts the FastAPI development server?", "fastapi dev main.py"),
        ("How do I run Uvicorn?", "uvicorn main:app --port 8000"),
    ],
)
def test_the_span_that_states_it_is_the_answer(question: str, short: str) -> None:
    shown = compose(plan_reading(question, [README, SERVER]), ["Starlette"] * 4)
    assert (shown.short, shown.reader) == (short, "fact")
    assert shown.support is not None and short in shown.support.sentence


def test_a_fact_no_passage_states_for_what_the_question_names_is_declined() -> None:
    shown = compose(plan_reading("What version of Django is described?", [README, SERVER]), ["0.165.0"] * 4)
    assert shown.reader == "declined" and shown.short.startswith("Insufficient")


def test_a_lowercase_package_s_licence_is_never_another_package_s_line() -> None:
    others = [
        Passage(1, "Package idna, version 3.10. License: BSD-3-Clause.\nIDNA encodes domain names.", "net:pkg-idna"),
        Passage(2, "Package h11, version 0.16.0. License: MIT.\nA pure-Python HTTP/1.1 library.", "net:pkg-h11"),
    ]
    asked = compose(plan_reading("Under which licence is h11 distributed?", others), [])
    assert (asked.short, asked.reader) == ("MIT", "fact")
    elsewhere = compose(plan_reading("Under which licence is httpx distributed?", others), [])
    assert elsewhere.reader == "declined", "no passage names httpx: neither MIT nor BSD is its licence"


DOCS = Passage(
    1,
    "Vulture finds unused code and runs on Python 3.10+.\n"
    "Package vulture, version 2.16. License: The MIT License (MIT).\n"
    "Install the `hf` CLI, then log in:\n"
    "```bash\n# Log in first\nhf auth login\n```\n"
    "## Usage\n"
    "    $ vulture myscript.py  # or\n"
    "    $ python3 -m vulture myscript.py\n"
    "    $ vulture myscript.py --min-confidence 100\n",
    "dev:vulture",
)


@pytest.mark.parametrize(
    ("question", "short"),
    [
        ("What version of Vulture is described?", "2.16"),  # not "3.10", the Python version the text names
        ("Under which licence is Vulture distributed?", "The MIT License (MIT)"),  # the field's whole value
        ("Which command runs Vulture as a Python module on myscript.py?", "python3 -m vulture myscript.py"),
        ("Which hf command logs you in?", "hf auth login"),  # a line of its own; the CLI the text writes in code
    ],
)
def test_a_documentation_page_s_fact_is_its_span_alone(question: str, short: str) -> None:
    shown = compose(plan_reading(question, [DOCS]), [])
    assert (shown.short, shown.reader) == (short, "fact")


def test_an_excerpt_keeps_the_lines_of_a_code_block_apart() -> None:
    text = "Intro sentence about nothing.\n    $ pip install vulture\n    $ vulture myscript.py  # or\nMore prose here."
    cut = excerpt(text, ["vulture"], 60)
    assert "pip install vulture\n$ vulture myscript.py" in cut, cut


def test_an_excerpt_keeps_the_sentence_of_a_rare_term_in_either_spelling() -> None:
    text = "Package numpy, version 2.4.6.\nLicense: BSD-3-Clause AND 0BSD AND MIT.\n" + " ".join(
        f"NumPy is distributed with tool number {i:02d} for array work." for i in range(40)
    )
    cut = excerpt(text, ["licence", "NumPy", "distributed"], 300)
    assert "License: BSD-3-Clause AND 0BSD AND MIT" in cut, cut


@pytest.mark.parametrize(
    ("line", "licence"),
    [
        ("**License:** MIT", "MIT"),
        ("License: [MIT](LICENSE)", "MIT"),
        ("License: MIT, see the LICENSE file for more.", "MIT"),
        ("Licence: GPL-3.0-or-later (see COPYING)", "GPL-3.0-or-later"),
    ],
)
def test_a_licence_field_is_read_without_its_markup_link_or_trailing_prose(line: str, licence: str) -> None:
    page = Passage(1, f"Package gizmo, version 1.0.\n{line}", "d:gizmo")
    shown = compose(plan_reading("Under which licence is gizmo distributed?", [page]), [])
    assert shown.short == licence, shown.short


def test_a_well_known_tool_alone_is_a_command() -> None:
    page = Passage(1, "The test suite of gizmo uses its fixtures. Run `pytest` from the checkout.", "d:gizmo")
    shown = compose(plan_reading("Which command runs the gizmo test suite?", [page]), [])
    assert shown.short == "pytest", shown.short


def test_an_excerpt_keeps_a_line_break_across_a_dropped_sentence() -> None:
    filler = " ".join(f"Unrelated sentence number {i} about nothing." for i in range(30))
    text = f"Install accelerate first. {filler}\naccelerate config --yes\nDone."
    cut = excerpt(text, ["accelerate", "config"], 80)
    assert "\naccelerate config --yes" in cut, cut
