"""YAML for the model files, without anchors and aliases (issue 19).

PyYAML builds an alias as a second reference to the anchored node, so a few hundred bytes
of nested aliases ("billion laughs") describe a tree of astronomically many nodes that the
reader then walks; a model file needs neither, so ``load`` refuses every anchor and alias
while composing, before anything is built, naming its line and column. ``dump`` never writes
them (a value that occurs twice is written twice). The composer is PyYAML's own, in Python,
over libyaml's parser where PyYAML has it (as fast as ``CSafeLoader`` on model files: the
time goes into scanning and constructing), else over the pure-Python parser.
"""


def _yaml():
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is a dependency
        raise ImportError("YAML model files need PyYAML: pip install pyyaml (or use .json)") from None
    return yaml


_CLASSES = []


def _classes():
    """(Loader, Dumper), made once, when PyYAML is first needed."""
    if _CLASSES:
        return _CLASSES
    yaml = _yaml()
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.events import AliasEvent
    from yaml.resolver import Resolver

    class AliasRefusedError(yaml.YAMLError):
        """An anchor or an alias in a model file; the message gives its line and column."""

    class NoAliasComposer(Composer):
        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, AliasEvent) or getattr(event, "anchor", None) is not None:
                mark = event.start_mark
                raise AliasRefusedError(f"line {mark.line + 1}, column {mark.column + 1}: anchors and aliases "
                                        f"(&{event.anchor}, *{event.anchor}) are not allowed in model files")
            return super().compose_node(parent, index)

    try:
        from yaml._yaml import CParser
    except ImportError:  # PyYAML without libyaml
        class Loader(NoAliasComposer, yaml.SafeLoader):
            """The safe loader with the alias-refusing composer."""
    else:
        class Loader(NoAliasComposer, CParser, SafeConstructor, Resolver):
            """libyaml's parser, the alias-refusing composer, the safe constructor."""

            def __init__(self, stream):
                CParser.__init__(self, stream)
                NoAliasComposer.__init__(self)
                SafeConstructor.__init__(self)
                Resolver.__init__(self)

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
        """The safe dumper, writing repeated values out instead of as aliases."""

        def ignore_aliases(self, data):
            return True

    _CLASSES.extend((Loader, Dumper))
    return _CLASSES


def load(text):
    """The data of YAML ``text``; ``yaml.YAMLError`` (an anchor or alias among them) when it
    is not valid or not allowed."""
    return _yaml().load(text, Loader=_classes()[0])


def dump(data, **options):
    """YAML text of ``data`` (plain Python data), without anchors or aliases."""
    return _yaml().dump(data, Dumper=_classes()[1], **options)


def error_types():
    """The exception types ``load`` raises for bad text."""
    return (_yaml().YAMLError,)
