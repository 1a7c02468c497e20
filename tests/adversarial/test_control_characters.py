"""Control characters never reach the store as a document id, nor the terminal raw: a newline or an escape
sequence in an id is refused on every ingest path, and the progress bar shows a file name's escaped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from edge_node.api import TqdmProgress
from edge_node.ingest.readers import RawDocument
from tests.support.fakes_edge import make_service

FORGED = ["line\nforged: ok", "red\x1b[31m", "back\r\x08space", "tab\there", "nul\x00"]


@pytest.mark.parametrize("doc_id", FORGED)
def test_an_id_with_a_control_character_is_refused_and_the_batch_goes_on(tmp_path: Path, doc_id: str) -> None:
    ingest, _ = make_service(tmp_path / "edge")
    try:
        report = ingest.ingest(
            [RawDocument(doc_id, "t", "Dana Smith runs the Oslo lab.", "inline"), RawDocument("good", "t", "Acme.", "")]
        )
        assert report.added == ["good"], "the good document of the same batch is stored"
        assert len(report.failed) == 1 and "printable characters" in report.failed[0][1]
        assert all(c.isprintable() for c in report.failed[0][1]), "the reason shows the id escaped"
        assert ingest._kb.store.document_ids() == ["good"]
    finally:
        ingest._kb.close()


def test_the_progress_bar_escapes_a_file_names_control_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    progress = TqdmProgress()
    progress.start("documents", 1)
    progress.advance("documents", "failed evil\r\x08\x1b[2Jname.txt")
    progress.done("documents")
    written = err.getvalue()
    assert "\x1b[2J" not in written and "\x08" not in written and "\\x1b[2J" in written


def test_edge_summaries_prints_a_summarys_escape_sequences_escaped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A summary the SLM wrote from a hostile document, and its names, reach the terminal escaped."""
    from edge_node import cli
    from edge_node.store.records import SubgraphRecord

    hostile = "Acme\x1b]0;owned\x07 runs\x1b[2J the lab."
    record = SubgraphRecord("sg-1", 1, "f", (), hostile, ("A\x1bc",), 1, 0, 0.0)

    class Opened:
        def __enter__(self) -> Opened:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def subgraphs(self) -> list[SubgraphRecord]:
            return [record]

    monkeypatch.setattr(cli.Edge, "open", lambda *a, **k: Opened())
    assert cli.cmd_summaries(cli.argparse.Namespace(data_dir=Path("x"), json=False)) == 0
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed
    assert "Acme" in printed and "the lab." in printed
