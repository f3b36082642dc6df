"""Browser 3-D viewer (viser): ``view(m, q)`` shows a model, ``view(m, result)`` replays a run.

Needs the ``viewer`` extra (``pip install "multibody[viewer]"``: viser and trimesh),
imported only when a viewer is made.
"""
from .viewer import Viewer, view

__all__ = ["Viewer", "view"]
