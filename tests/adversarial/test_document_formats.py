"""Fifty-nine hostile or broken documents of the types people keep (ten each of .docx, .odt, .html, .eml, .csv,
and nine that once unpacked to gigabytes or took minutes), read
as `dgrag edge ingest` reads a folder: each bad one is refused in one line naming it and why, each readable one
keeps its text and never a script's or an entity's, and the batch goes on past them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from edge_node.ingest.readers import RawDocument, read_paths
from shared.core.errors import InputDocumentError
from tests.support.bad_documents import SECRET, Case, bad_documents

MAX_BYTES = 8 * 1024 * 1024
Read = tuple[list[Case], dict[str, RawDocument | InputDocumentError], float]


@pytest.fixture(scope="module")
def read(tmp_path_factory: pytest.TempPathFactory) -> Read:
    folder = tmp_path_factory.mktemp("kept")
    cases = bad_documents(folder)
    (folder / "good.txt").write_text("Acme Robotics builds welding arms in Berlin.")
    started = time.monotonic()
    results = list(read_paths([folder], MAX_BYTES))
    seconds = time.monotonic() - started
    by_name = {Path(r.source if isinstance(r, RawDocument) else r.path).name: r for r in results}
    return cases, by_name, seconds


def test_each_bad_document_is_refused_in_one_line_naming_it_and_the_rest_is_read(
    read: Read, record_property: pytest.RecordProperty
) -> None:
    cases, by_name, seconds = read
    assert len(cases) == 59
    refused = 0
    for case in cases:
        result = by_name[case.name]
        if case.reason:
            assert isinstance(result, InputDocumentError), f"{case.name} was read"
            assert case.reason in result.reason, f"{case.name}: {result.reason}"
            assert "\n" not in str(result) and result.path.endswith(case.name)
            refused += 1
        else:
            assert isinstance(result, RawDocument), f"{case.name}: {result}"
            assert case.keeps in result.text, f"{case.name}: {result.text[:300]!r}"
    assert isinstance(by_name["good.txt"], RawDocument), "the batch went on past the bad files"
    record_property("figure", f"{refused} refused, {len(cases) - refused} read safely, in {seconds:.1f} s")


def test_no_script_entity_or_foreign_header_text_reaches_a_document(
    read: Read,
) -> None:
    _, by_name, _ = read
    for name, result in by_name.items():
        if isinstance(result, RawDocument):
            assert SECRET not in result.text or name == "headers.eml", f"{name} kept {SECRET}"
            assert "document.write" not in result.text and "onload" not in result.text, name
