"""The package's modules import one another top-down: no import cycle, counting the
imports inside functions too (an import moved into a function hides a cycle, it does
not remove it), and each package imports only the packages below it (the layers of
docs/architecture.md).

The graph is read from the source with ``ast`` (nothing is imported): every ``import``
and ``from ... import`` of a ``multibody`` module anywhere in a file, relative imports
resolved, ``from . import x`` read as an import of the submodule ``x``. A package's
``__init__`` importing its own submodules is not an edge back up from them, and the
top-level ``multibody`` facade (which re-exports everything) is no module's dependency.
"""
import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def module_files(src=SRC):
    """{dotted module name: path} of every ``.py`` file of the package under ``src``."""
    mods = {}
    for p in sorted((src / "multibody").rglob("*.py")):
        parts = list(p.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = p
    return mods


def _targets(name, is_pkg, node, mods):
    """The dotted names an Import/ImportFrom node of module ``name`` refers to: for ``from
    X import y``, the submodule ``X.y`` where there is one, else ``X``."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        parts = name.split(".") if is_pkg else name.split(".")[:-1]
        base = ".".join(parts[:len(parts) - (node.level - 1)])
        target = base + ("." + node.module if node.module else "")
    else:
        target = node.module or ""
    return [target + "." + a.name if target + "." + a.name in mods else target for a in node.names]


def _known(dotted, mods):
    """The longest prefix of ``dotted`` that is a module of the package, or None."""
    while dotted:
        if dotted in mods:
            return dotted
        dotted = dotted.rpartition(".")[0]
    return None


def import_graph(src=SRC):
    """{module: set of package modules it imports (anywhere in its file)}."""
    mods = module_files(src)
    graph = {m: set() for m in mods}
    for name, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for t in (_known(t, mods) for t in _targets(name, is_pkg, node, mods)):
                if t and t not in (name, "multibody") and not (is_pkg and t.startswith(name + ".")):
                    graph[name].add(t)
    return graph


def find_cycle(graph):
    """One import cycle [a, b, ..., a] of ``graph``, or None (depth-first search)."""
    state, path = {}, []

    def visit(v):
        state[v] = 1
        path.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state:
                cycle = visit(w)
                if cycle:
                    return cycle
        state[v] = 2
        path.pop()
        return None

    for v in sorted(graph):
        if v not in state:
            cycle = visit(v)
            if cycle:
                return cycle
    return None


#: the layers, lowest first: a package (or top-level module) imports only from layers below
#: its own, and its own modules; those of one layer do not import each other. Modules not
#: named here (``cli``, ``warmup``, ``sweep``, ``methods``, ``viz`` ..., the top) import
#: anything, and may be imported from these layers only when in ``UTILITIES``.
LAYERS = (
    {"spatial"},
    {"kernels"},
    {"flex"},
    {"model"},
    {"algorithms"},
    {"results"},
    {"simulation"},
    {"views", "planning", "io", "interop"},
)
#: leaf modules any layer may import (they import no layer)
UTILITIES = {"progress", "plotting", "result_journal", "result_writer", "result_reader"}
#: the imports that go up today, each with its reason (docs/architecture.md, "Layers")
KNOWN_UPWARD = {
    # bounded reading of a file, shared by every loader; modal data files read through it
    ("multibody.flex.modal_file", "multibody.io._files"),
    ("multibody.flex.fe_import", "multibody.io._files"),
}


def _part(module):
    """The package (or top-level module) of ``multibody.<part>...``."""
    return module.split(".")[1] if module.count(".") else module


def layer_violations(graph):
    """The imports (importer, imported) of ``graph`` that break ``LAYERS``."""
    rank = {p: i for i, layer in enumerate(LAYERS) for p in layer}
    bad = []
    for a, targets in sorted(graph.items()):
        pa = _part(a)
        if pa not in rank:
            continue
        for b in sorted(targets):
            pb = _part(b)
            if pb == pa or (a, b) in KNOWN_UPWARD:
                continue
            if pb in UTILITIES or (pb in rank and rank[pb] < rank[pa]):
                continue
            bad.append((a, b))
    return bad


def test_walker_reads_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / "multibody"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .sub import a\n")
    (pkg / "sub" / "__init__.py").write_text("from . import a, b\n")
    (pkg / "sub" / "a.py").write_text("def f():\n    from . import b\n")
    (pkg / "sub" / "b.py").write_text("import multibody.top\nfrom ..top import name\n")
    (pkg / "top.py").write_text("def g():\n    from .sub.a import f\n")
    graph = import_graph(tmp_path)
    assert graph["multibody.sub"] == set()  # a package's own submodules: no edge back up
    assert graph["multibody.sub.a"] == {"multibody.sub.b"}
    assert graph["multibody.sub.b"] == {"multibody.top"}
    assert graph["multibody.top"] == {"multibody.sub.a"}
    assert find_cycle(graph) == ["multibody.sub.a", "multibody.sub.b", "multibody.top", "multibody.sub.a"]


def test_no_import_cycle():
    graph = import_graph()
    assert len(graph) > 100  # the walker found the package
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_layers_import_downward():
    graph = import_graph()
    bad = layer_violations(graph)
    assert not bad, "imports against the layers: " + ", ".join(f"{a} -> {b}" for a, b in bad)
    for a, b in KNOWN_UPWARD:  # an exception that is gone is taken off the list
        assert b in graph[a], f"{a} no longer imports {b}: remove it from KNOWN_UPWARD"


def test_methods_from_above_are_the_functions():
    """``model`` imports no algorithm, yet ``Multibody``'s methods are the free functions
    themselves (no delegating call), attached by ``multibody.methods``."""
    import multibody as mb
    from multibody.methods import METHODS

    assert mb.Multibody.forward_dynamics is mb.algorithms.forward_dynamics
    assert mb.Multibody.sub_tree is mb.views.sub_tree
    for name, function in METHODS.items():
        assert getattr(mb.Multibody, name) is function, name
    assert mb.flex.ModalData.save is mb.flex.save_modal_data
