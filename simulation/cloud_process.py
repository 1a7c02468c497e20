"""The simulation's cloud process: ``dgrag cloud serve`` with the lab's one setting, askers seeing the routing.

Run as ``python -m simulation.cloud_process [--config F] [--routing-shown] --port-file P``. The product's config
has no such setting; the simulation hands it to ``build_cloud`` in Python, since one researcher owns every
edge of a simulated network and its rows record the routing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from cloud_server.api import run_cloud
from shared.core.errors import DgragError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m simulation.cloud_process", description=__doc__)
    parser.add_argument("--config", type=Path, help="TOML config file (DGRAG__* variables override it)")
    parser.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    parser.add_argument("--routing-shown", action="store_true", help="askers see the routing of every named edge")
    args = parser.parse_args(argv)
    try:
        run_cloud(args.config, args.port_file, askers_see_routing=args.routing_shown)
    except DgragError as exc:
        print(f"cloud: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
