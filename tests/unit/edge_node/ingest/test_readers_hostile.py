"""Hostile inputs to the readers: each gives one error naming its path, nothing crashes or hangs, the rest is read."""

from __future__ import annotations

import os
from pathlib import Path

from edge_node.ingest.readers import RawDocument, read_paths
from shared.core.errors import InputDocumentError

LIMIT = 1 << 20


def _read(*paths: Path) -> tuple[list[RawDocument], list[InputDocumentError]]:
    out = list(read_paths(list(paths), LIMIT))
    return [d for d in out if isinstance(d, RawDocument)], [e for e in out if isinstance(e, InputDocumentError)]


def test_a_directory_walk_never_leaves_the_directory_nor_loops(tmp_path: Path) -> None:
    inbox, outside = tmp_path / "inbox", tmp_path / "outside"
    inbox.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("the password is swordfish")
    (inbox / "good.txt").write_text("Acme builds robots.")
    (inbox / "leak.txt").symlink_to(outside / "secret.txt")
    (inbox / "dir-out").symlink_to(outside, target_is_directory=True)
    (inbox / "loop").symlink_to(inbox, target_is_directory=True)
    (inbox / "a.txt").symlink_to(inbox / "b.txt")
    (inbox / "b.txt").symlink_to(inbox / "a.txt")
    (inbox / "dev.txt").symlink_to("/dev/zero")
    os.mkfifo(inbox / "fifo.txt")
    docs, errors = _read(inbox)
    assert [d.title for d in docs] == ["good"]
    assert all("swordfish" not in d.text for d in docs)
    failed = {Path(e.path).name: e.reason for e in errors}
    assert "symlink leading out" in failed["leak.txt"] and "symlink leading out" in failed["dev.txt"]
    assert set(failed) == {"leak.txt", "dev.txt", "a.txt", "b.txt", "fifo.txt"}


def test_a_huge_sparse_file_and_a_huge_bundle_row_are_refused_without_reading_them(tmp_path: Path) -> None:
    sparse = tmp_path / "sparse.txt"
    with sparse.open("wb") as f:
        f.truncate(1 << 30)
    bundle = tmp_path / "b.jsonl"
    with bundle.open("w") as f:
        f.write('{"doc_id": "big", "text": "' + "x" * (LIMIT + 10) + '"}\n')
        f.write('{"doc_id": "ok", "text": "Acme builds robots."}\n')
    docs, errors = _read(sparse, bundle)
    assert [d.doc_id for d in docs] == ["ok"]
    assert [Path(e.path.split(":")[0]).name for e in errors] == ["sparse.txt", "b.jsonl"]
    assert all("limit" in e.reason for e in errors)


def test_unpaired_surrogates_and_a_broken_pdf_stream_are_input_errors(tmp_path: Path) -> None:
    bundle = tmp_path / "b.jsonl"
    bundle.write_text('{"doc_id": "s", "text": "bad \\ud800 half"}\n{"doc_id": "ok", "text": "fine"}\n')
    pdf = tmp_path / "broken.pdf"
    pdf.write_bytes(
        b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
        b"3 0 obj<</Type/Page/Parent 2 0 R/Contents 4 0 R/MediaBox[0 0 9 9]>>endobj\n"
        b"4 0 obj<</Length 12/Filter/FlateDecode>>stream\nnot-zlib-data\nendstream endobj\n"
        b"trailer<</Root 1 0 R>>\n%%EOF"
    )
    docs, errors = _read(bundle, pdf)
    assert [d.doc_id for d in docs] == ["ok"]
    reasons = {Path(e.path.split(":")[0]).name: e.reason for e in errors}
    assert "surrogate" in reasons["b.jsonl"]
    assert "broken.pdf" in reasons


def test_error_lines_escape_control_characters_in_file_names() -> None:
    from shared.cli.console import one_line

    assert one_line("/in/new\nline.txt") == "/in/new\\nline.txt"
    assert one_line("/in/tab\there\x1b[31m.txt") == "/in/tab\\there\\x1b[31m.txt"
    assert one_line("/in/café.txt") == "/in/café.txt"


def test_what_is_opened_is_what_is_checked_a_swapped_symlink_and_a_fifo_are_refused(tmp_path: Path) -> None:
    import os

    from edge_node.ingest import readers
    from edge_node.ingest.readers import read_paths

    root, outside = tmp_path / "roots", tmp_path / "private"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("the private key is 1234")
    note = root / "note.txt"
    note.write_text("an ordinary note")
    opened = readers.open_confined

    def swap_then_open(path: Path, within: tuple[Path, ...] = ()):  # type: ignore[no-untyped-def]
        note.unlink()  # the path was checked as a plain file under the root; now it leads out
        note.symlink_to(outside / "secret.txt")
        return opened(path, within)

    readers.open_confined = swap_then_open  # type: ignore[assignment]
    try:
        [result] = list(read_paths([note], 1 << 20, confine=(root.resolve(),)))
    finally:
        readers.open_confined = opened  # type: ignore[assignment]
    assert isinstance(result, InputDocumentError) and "leads out of" in str(result), result
    os.mkfifo(root / "pipe.txt")
    [fifo] = list(read_paths([root / "pipe.txt"], 1 << 20, confine=(root.resolve(),)))
    assert isinstance(fifo, InputDocumentError) and "not a regular file" in str(fifo), "refused, never blocked on"
    [plain] = list(read_paths([root / "ok.txt"], 1 << 20)) if (root / "ok.txt").write_text("fine") else []
    assert not isinstance(plain, InputDocumentError) and plain.text == "fine"
