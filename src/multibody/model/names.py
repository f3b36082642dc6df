"""The error for a name that is not there (a body, hinge, node, constraint ...), with close
matches as a hint; for the model objects' look-ups and every layer above them."""
import difflib


def missing(kind, name, options):
    """KeyError for an unknown name, with close matches as a hint."""
    close = difflib.get_close_matches(str(name), list(options), n=3)
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    return KeyError(f"unknown {kind} {name!r}{hint}")
