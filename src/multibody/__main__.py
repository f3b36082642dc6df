"""``python -m multibody``: the command line (see ``multibody.cli``)."""
from .cli import run

run()
