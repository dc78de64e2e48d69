"""``python -m webapp.cli``: the ``veedor`` command."""

import sys

from . import main

sys.exit(main())
