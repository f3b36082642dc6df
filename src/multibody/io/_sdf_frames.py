"""The named frames of one SDFormat ``<model>`` and their poses in the model frame.

Frames are the model frame ``__model__``, the links, the joints and the explicit
``<frame name attached_to>`` elements (plus ``world``, the frame the model's own
``<pose>`` is given in). Each has a pose relative to another frame; the defaults are
those of every version from 1.4 on:

* a link's pose is relative to the model frame;
* a joint's pose is relative to its child link (its child frame, since 1.8);
* a ``<frame>``'s pose is relative to the frame it is attached to (default: the model
  frame).

Since 1.7 ``<pose relative_to="...">`` names another frame (1.5/1.6's ``frame``
attribute is read the same way). ``pose_in_model(name)`` follows these references to
the model frame (refusing cycles and unknown names); ``link_of(name)`` is the link a
frame is fixed on (a joint's child link, a frame's ``attached_to`` followed down;
``__model__`` is the canonical link).
"""
import numpy as np

from ..spatial import transform_inverse
from . import _sdf_xml

MODEL = "__model__"
WORLD = "world"


class Frames:
    """Named frames of a model (see the module docstring).

    ``links``/``joints``: ``{name: element}`` in file order; ``model_pose``: the model's pose
    in the world (4x4); ``canonical``: the canonical link's name.
    """

    def __init__(self, model, version, source, links, joints):
        self.source = source
        self.version = version
        self.model_name = model.get("name")
        self.model_pose, rel = _sdf_xml.pose(model, version, f"{source}: model {self.model_name!r}")
        if rel not in (None, WORLD):
            raise ValueError(f"{source}: model {self.model_name!r} <pose> is relative to {rel!r}; a "
                             f"top-level model's pose is given in the world")
        self.canonical = model.get("canonical_link") or next(iter(links), None)
        if self.canonical is not None and self.canonical not in links:
            raise ValueError(f"{source}: model {self.model_name!r} canonical_link {self.canonical!r} "
                             f"is not a link of the model")
        self.links, self.joints = links, joints
        self._pose = {}       # name -> (T relative to reference, reference name)
        self._attached = {}   # explicit frame name -> attached_to
        for name, el in links.items():
            T, rel = _sdf_xml.pose(el, version, f"{source}: link {name!r}")
            self._pose[name] = (T, rel or MODEL)
        self._joint_pose = {}
        for name, el in joints.items():
            T, rel = _sdf_xml.pose(el, version, f"{source}: joint {name!r}")
            self._joint_pose[name] = (T, rel or _sdf_xml.child_text(el, "child") or "")
            self._pose.setdefault(name, self._joint_pose[name])  # a link of the same name (< 1.7) wins
        for el in model.findall("frame"):
            name = el.get("name")
            if not name:
                raise ValueError(f"{source}: a <frame> of model {self.model_name!r} has no name attribute")
            if name in self._pose or name in (MODEL, WORLD):
                raise ValueError(f"{source}: frame name {name!r} is already used by a link, joint or frame")
            attached = (el.get("attached_to") or "").strip() or MODEL
            T, rel = _sdf_xml.pose(el, version, f"{source}: frame {name!r}")
            self._pose[name] = (T, rel or attached)
            self._attached[name] = attached
        self._memo = {MODEL: np.eye(4), WORLD: transform_inverse(self.model_pose)}

    def _known(self, name):
        return name in self._pose or name in (MODEL, WORLD)

    def pose_in_model(self, name, what=None):
        """X_MF (4x4): the pose of frame ``name`` in the model frame."""
        if name in self._memo:
            return self._memo[name]
        chain = []
        cur = name
        while cur not in self._memo:
            if not self._known(cur):
                owner = what or (f"frame {chain[-1]!r}" if chain else "a pose")
                raise ValueError(f"{self.source}: {owner}: pose is relative to {cur!r}, which is not a "
                                 f"link, joint or frame of model {self.model_name!r}")
            if cur in chain:
                loop = " -> ".join(chain[chain.index(cur):] + [cur])
                raise ValueError(f"{self.source}: the poses of frames {loop} are relative to each "
                                 f"other in a cycle")
            chain.append(cur)
            cur = self._pose[cur][1]
        X = self._memo[cur]
        for f in reversed(chain):
            X = X @ self._pose[f][0]
            self._memo[f] = X
        return self._memo[name]

    def joint_in_model(self, name):
        """X_MJ (4x4): the pose of joint ``name``'s frame in the model frame."""
        T, rel = self._joint_pose[name]
        return self.pose_in_model(rel, f"joint {name!r}") @ T

    def relative_pose(self, T, rel, link, what):
        """X_LF of a pose ``T`` given relative to frame ``rel`` (None: the link ``link`` itself)."""
        if rel is None or rel == link:
            return T
        return transform_inverse(self.pose_in_model(link)) @ self.pose_in_model(rel, what) @ T

    def link_of(self, name, what):
        """The link frame ``name`` is fixed on (``world`` for the world frame)."""
        seen = []
        cur = name
        while True:
            if cur in self.links or cur == WORLD:
                return cur
            if cur in seen:
                raise ValueError(f"{self.source}: {what}: frames {seen} are attached to each other in a cycle")
            seen.append(cur)
            if cur == MODEL:
                if self.canonical is None:
                    raise ValueError(f"{self.source}: {what}: model {self.model_name!r} has no link")
                cur = self.canonical
            elif cur in self._attached:
                cur = self._attached[cur]
            elif cur in self.joints:
                cur = _sdf_xml.child_text(self.joints[cur], "child") or ""
            else:
                raise ValueError(f"{self.source}: {what} names {cur!r}, which is not a link or frame "
                                 f"of model {self.model_name!r}")
