"""``python -m dgrag``: the same as the ``dgrag`` command."""

import sys

from dgrag.supervisor import main

sys.exit(main())
