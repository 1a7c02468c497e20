"""Unit tests for edge_node/ingest/readers.py: each bad input is yielded as an error naming it; the batch goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_node.ingest.readers import RawDocument, ReadResult, read_paths
from shared.core.errors import InputDocumentError, NoReaderError

MAX = 1_000_000


def _read(paths: list[Path], max_bytes: int = MAX, bundle_edge: str | None = None) -> list[ReadResult]:
    return list(read_paths(paths, max_bytes, bundle_edge))


def _only_error(results: list[ReadResult]) -> InputDocumentError:
    assert len(results) == 1
    (err,) = results
    assert isinstance(err, InputDocumentError)
    return err


def _write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_reads_txt_and_md(tmp_path: Path) -> None:
    txt = tmp_path / "notes.txt"
    txt.write_text("Alice met Bob.\n", encoding="utf-8")
    md = tmp_path / "readme.MD"
    md.write_text("# Title\n\nSome *markdown*.", encoding="utf-8")
    results = _read([txt, md])
    assert results == [
        RawDocument("notes.txt", "notes", "Alice met Bob.\n", str(txt), former_id=str(txt.resolve())),
        RawDocument("readme.MD", "readme", "# Title\n\nSome *markdown*.", str(md), former_id=str(md.resolve())),
    ]


def _ids(results: list[ReadResult]) -> list[str]:
    return [r.doc_id for r in results if isinstance(r, RawDocument)]


def test_ids_are_paths_from_the_folder_given_and_survive_a_move(tmp_path: Path) -> None:
    root = tmp_path / "clinic" / "notes"
    (root / "2024").mkdir(parents=True)
    (root / "a.txt").write_text("A text", encoding="utf-8")
    (root / "2024" / "b.md").write_text("B text", encoding="utf-8")
    assert _ids(_read([root])) == ["notes/2024/b.md", "notes/a.txt"]
    moved = tmp_path / "elsewhere" / "notes"
    moved.parent.mkdir()
    root.rename(moved)
    assert _ids(_read([moved])) == ["notes/2024/b.md", "notes/a.txt"], "moving the folder keeps every id"
    assert _ids(list(read_paths([moved], MAX, root=moved))) == ["2024/b.md", "a.txt"]
    assert _ids(list(read_paths([moved / "2024" / "b.md"], MAX, root=tmp_path))) == ["elsewhere/notes/2024/b.md"]


def test_a_file_outside_the_root_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    stray = tmp_path / "stray.txt"
    stray.write_text("text", encoding="utf-8")
    err = _only_error(list(read_paths([stray], MAX, root=tmp_path / "inside")))
    assert err.path == str(stray) and "outside the ingest root" in err.reason and "--root" in err.reason


def test_utf8_bom_is_stripped(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffCafé Zürich".encode())
    (doc,) = _read([path])
    assert isinstance(doc, RawDocument)
    assert doc.text == "Café Zürich"


def test_directory_recursion_sorted_and_skips_hidden(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "b.md").write_text("B text", encoding="utf-8")
    (root / "a.txt").write_text("A text", encoding="utf-8")
    (root / "sub" / "c.txt").write_text("C text", encoding="utf-8")
    (root / ".hidden.txt").write_text("hidden", encoding="utf-8")
    (root / ".git" / "config.txt").write_text("hidden too", encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG")  # no reader takes it: named as not read, not a failure
    results = _read([root])
    unread = [r for r in results if not isinstance(r, RawDocument)]
    assert [(type(r), r.path) for r in unread] == [(NoReaderError, str(root / "image.png"))]
    assert [r.source for r in results if isinstance(r, RawDocument)] == [
        str(root / "a.txt"),
        str(root / "b.md"),
        str(root / "sub" / "c.txt"),
    ]
    assert [r.text for r in results if isinstance(r, RawDocument)] == ["A text", "B text", "C text"]


def test_directory_without_supported_files(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    (root / "x.exe").write_bytes(b"MZ")
    err, unread = _read([root])
    assert isinstance(err, InputDocumentError) and not isinstance(err, NoReaderError) and err.path == str(root)
    assert "no" in err.reason and ".txt" in err.reason
    assert isinstance(unread, NoReaderError) and unread.path == str(root / "x.exe")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.txt"
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert err.reason == "no such file or directory"
    assert str(err) == f"{path}: no such file or directory"


def test_binary_txt(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(b"abc\x00\x01\x02def")
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert "binary" in err.reason and "NUL" in err.reason


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.md"
    path.touch()
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert err.reason == "is empty"


def test_whitespace_only_file(tmp_path: Path) -> None:
    path = tmp_path / "blank.txt"
    path.write_text("  \n\t\n", encoding="utf-8")
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert err.reason == "contains no text"


def test_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("Caf\xe9 au lait".encode("latin-1"))
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert "not valid UTF-8" in err.reason
    assert "byte 3" in err.reason


def test_file_over_max_bytes(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("x" * 101, encoding="utf-8")
    err = _only_error(_read([path], max_bytes=100))
    assert err.path == str(path)
    assert "limit" in err.reason and "max_file_bytes" in err.reason
    ok = tmp_path / "small.txt"
    ok.write_text("x" * 100, encoding="utf-8")
    (doc,) = _read([ok], max_bytes=100)
    assert isinstance(doc, RawDocument)


@pytest.mark.parametrize("name", ["program.exe", "noext", "sheet.xlsx"])
def test_unsupported_suffix(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"hello")
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert "unsupported file type" in err.reason
    assert ".txt" in err.reason  # says what is supported


def test_garbage_pdf(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"this is not a pdf at all " * 4)
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert "PDF" in err.reason


def test_blank_pdf_has_no_text(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    path = tmp_path / "blank.pdf"
    writer = pypdf.PdfWriter()
    writer.add_blank_page(width=72, height=72)
    with path.open("wb") as handle:
        writer.write(handle)
    err = _only_error(_read([path]))
    assert err.path == str(path)
    assert "no extractable text" in err.reason


def test_batch_continues_past_errors(tmp_path: Path) -> None:
    good1 = tmp_path / "good1.txt"
    good1.write_text("first", encoding="utf-8")
    missing = tmp_path / "missing.txt"
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\x00\x00")
    exe = tmp_path / "tool.exe"
    exe.write_bytes(b"MZ")
    bad_pdf = tmp_path / "bad.pdf"
    bad_pdf.write_bytes(b"garbage bytes")
    good2 = tmp_path / "good2.md"
    good2.write_text("second", encoding="utf-8")
    results = _read([good1, missing, binary, exe, bad_pdf, good2])
    assert [type(r).__name__ for r in results] == [
        "RawDocument",
        "InputDocumentError",
        "InputDocumentError",
        "InputDocumentError",
        "InputDocumentError",
        "RawDocument",
    ]
    assert [r.path for r in results if isinstance(r, InputDocumentError)] == [
        str(missing),
        str(binary),
        str(exe),
        str(bad_pdf),
    ]
    assert [r.text for r in results if isinstance(r, RawDocument)] == ["first", "second"]


def test_bundle_rows(tmp_path: Path) -> None:
    bundle = _write_jsonl(
        tmp_path / "bundle.jsonl",
        [
            {"doc_id": "d1", "text": "Alpha text", "title": "Alpha", "edge_id": "e1"},
            "{not json",
            {"text": "no id here"},
            "",
            {"doc_id": "d2", "text": "Beta text"},
            {"doc_id": "d3", "text": "   "},
            ["a", "list"],
            {"doc_id": 7, "text": "numeric id"},
            {"doc_id": "d4", "text": "Gamma", "title": 3},
        ],
    )
    results = _read([bundle])
    docs = [r for r in results if isinstance(r, RawDocument)]
    errors = [r for r in results if isinstance(r, InputDocumentError)]
    assert docs == [
        RawDocument(doc_id="d1", title="Alpha", text="Alpha text", source=f"{bundle}:1"),
        RawDocument(doc_id="d2", title="d2", text="Beta text", source=f"{bundle}:5"),
        RawDocument(doc_id="d4", title="d4", text="Gamma", source=f"{bundle}:9"),
    ]
    assert [e.path for e in errors] == [f"{bundle}:2", f"{bundle}:3", f"{bundle}:6", f"{bundle}:7", f"{bundle}:8"]
    assert "not valid JSON" in errors[0].reason
    assert "doc_id" in errors[1].reason
    assert "d3" in errors[2].reason and "no text" in errors[2].reason
    assert "doc_id" in errors[3].reason
    assert "doc_id" in errors[4].reason
    # Errors are yielded in place, so the good rows after a bad one still arrive in file order.
    assert [r.path if isinstance(r, InputDocumentError) else r.doc_id for r in results] == [
        "d1",
        f"{bundle}:2",
        f"{bundle}:3",
        "d2",
        f"{bundle}:6",
        f"{bundle}:7",
        f"{bundle}:8",
        "d4",
    ]


def test_bundle_invalid_utf8_row(tmp_path: Path) -> None:
    bundle = tmp_path / "b.jsonl"
    bundle.write_bytes(b'{"doc_id": "x", "text": "caf\xe9"}\n{"doc_id": "y", "text": "ok"}\n')
    results = _read([bundle])
    assert isinstance(results[0], InputDocumentError)
    assert results[0].path == f"{bundle}:1"
    assert "UTF-8" in results[0].reason
    assert results[1] == RawDocument(doc_id="y", title="y", text="ok", source=f"{bundle}:2")


def test_bundle_row_over_max_bytes(tmp_path: Path) -> None:
    bundle = _write_jsonl(
        tmp_path / "b.jsonl", [{"doc_id": "big", "text": "x" * 200}, {"doc_id": "small", "text": "tiny"}]
    )
    results = _read([bundle], max_bytes=100)
    assert isinstance(results[0], InputDocumentError)
    assert results[0].path == f"{bundle}:1"
    assert "limit" in results[0].reason
    assert results[1] == RawDocument(doc_id="small", title="small", text="tiny", source=f"{bundle}:2")


def test_bundle_edge_filter(tmp_path: Path) -> None:
    bundle = _write_jsonl(
        tmp_path / "b.jsonl",
        [
            {"doc_id": "a", "text": "for e1", "edge_id": "e1"},
            {"doc_id": "b", "text": "for e2", "edge_id": "e2"},
            {"doc_id": "c", "text": "no edge"},
            {"doc_id": "d", "text": "also e1", "edge_id": "e1"},
        ],
    )
    assert [r.doc_id for r in _read([bundle], bundle_edge="e1") if isinstance(r, RawDocument)] == ["a", "d"]
    assert [r.doc_id for r in _read([bundle], bundle_edge="e2") if isinstance(r, RawDocument)] == ["b"]
    assert [r.doc_id for r in _read([bundle]) if isinstance(r, RawDocument)] == ["a", "b", "c", "d"]


def test_bundle_edge_with_no_rows(tmp_path: Path) -> None:
    bundle = _write_jsonl(tmp_path / "b.jsonl", [{"doc_id": "a", "text": "t", "edge_id": "e1"}])
    after = tmp_path / "after.txt"
    after.write_text("still read", encoding="utf-8")
    results = _read([bundle, after], bundle_edge="e9")
    assert len(results) == 2
    err, doc = results
    assert isinstance(err, InputDocumentError)
    assert err.path == str(bundle)
    assert "e9" in err.reason
    assert isinstance(doc, RawDocument) and doc.text == "still read"


def test_two_files_that_would_get_one_id_are_not_both_taken(tmp_path: Path) -> None:
    for side in ("x", "y"):
        (tmp_path / side / "notes").mkdir(parents=True)
        (tmp_path / side / "notes" / "a.txt").write_text(f"The {side} notes.")
    results = list(read_paths([tmp_path / "x" / "notes", tmp_path / "y" / "notes"], 1 << 20))
    docs = [r for r in results if isinstance(r, RawDocument)]
    errors = [r for r in results if isinstance(r, InputDocumentError)]
    assert [d.doc_id for d in docs] == ["notes/a.txt"] and docs[0].text == "The x notes."
    assert len(errors) == 1 and "would have the id 'notes/a.txt'" in str(errors[0]) and "--root" in str(errors[0])
    rooted = [r for r in read_paths([tmp_path / "x", tmp_path / "y"], 1 << 20, root=tmp_path)]
    assert sorted(r.doc_id for r in rooted if isinstance(r, RawDocument)) == ["x/notes/a.txt", "y/notes/a.txt"]
