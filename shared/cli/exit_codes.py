"""The exit codes of every ``dgrag`` command, defined once."""

from __future__ import annotations

EXIT_OK = 0
EXIT_PARTIAL = 1  # some of the work failed (e.g. documents skipped); what succeeded is kept
EXIT_USAGE = 2  # bad input or configuration: nothing was done
EXIT_INTERRUPTED = 130  # SIGINT/SIGTERM: work committed so far is kept
