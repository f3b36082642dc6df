"""``python -m multibody``: the command line (see ``multibody.cli``)."""
import sys

from .cli import main

sys.exit(main())
