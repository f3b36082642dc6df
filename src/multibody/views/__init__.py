"""Views of a Multibody: sub-trees and sub-graphs (seed 000's SubTree and SubGraph).

A view holds a part of the model and runs every algorithm, and ``simulate``, on that
part's own coordinates, the rest of the model frozen: it sits above ``algorithms`` and
``simulation`` (``model`` builds the derived model a view runs on,
``model.subtree_model``, and runs nothing). ``Multibody.sub_tree`` and
``Multibody.sub_graph`` are ``sub_tree`` and ``sub_graph`` here (``multibody/methods.py``).
"""
from .subgraph import SubGraph, SubTree

__all__ = ["SubGraph", "SubTree", "sub_graph", "sub_tree"]


def sub_tree(m, name, root, use_branches=None, stop_at=None):
    """A ``SubTree`` (``multibody.views.subgraph``) of Multibody ``m``: the bodies below
    ``root`` (a body or name; None or "world" for the whole tree), on the branches holding
    a body of ``use_branches`` if given, cut below each body of ``stop_at``; its algorithms
    move its coordinates only, the rest of the model frozen."""
    return SubTree(m, name, root, use_branches, stop_at)


def sub_graph(m, name, root, use_branches=None, stop_at=None, constraints=()):
    """A ``SubGraph``: ``sub_tree`` plus the given ``constraints`` of ``m`` (objects or
    names) added and enabled in it; see ``multibody.views.subgraph.SubGraph``."""
    return SubGraph(m, name, root, use_branches, stop_at, constraints)
