"""The child process that reads documents for edge_node.ingest.reader_sandbox, under an address-space limit.

    python -m edge_node.ingest.reader_child MEMORY_BYTES

It says ``ready``, then for each request (a JSON header line: suffix, name, max_chars, size; then ``size`` bytes of
the document) writes one JSON line: {"title", "text"} or {"refused": why}. It ends when its input does.
"""

from __future__ import annotations

import json
import resource
import sys
from typing import BinaryIO


def serve(memory_bytes: int, source: BinaryIO, sink: BinaryIO) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    from edge_node.ingest.document_formats import read_document
    from shared.core.errors import InputDocumentError

    sink.write(b"ready\n")
    sink.flush()
    while header := source.readline():
        asked = json.loads(header)
        data = source.read(int(asked["size"]))
        try:
            title, text = read_document(data, str(asked["suffix"]), str(asked["name"]), int(asked["max_chars"]))
            answer: dict[str, str] = {"title": title, "text": text}
        except InputDocumentError as exc:
            answer = {"refused": exc.reason}
        except MemoryError:
            answer = {"refused": f"needed more than {memory_bytes // 2**20} MB to read; refused"}
        except Exception as exc:  # a reader's bug or a format it does not handle: this file fails, not the batch
            detail = f"{type(exc).__name__}: {str(exc)[:200]}"
            answer = {"refused": f"is a damaged or unsupported {asked['suffix']} file; refused ({detail})"}
        sink.write(json.dumps(answer).encode() + b"\n")
        sink.flush()


if __name__ == "__main__":
    serve(int(sys.argv[1]), sys.stdin.buffer, sys.stdout.buffer)
