"""``python -m dgrag``: the same as the ``dgrag`` command."""

import sys

from dgrag.cli import main

sys.exit(main())
