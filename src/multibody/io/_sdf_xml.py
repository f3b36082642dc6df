"""SDFormat text: safe parsing, the ``<model>`` to read, element values and poses.

* ``parse_sdf`` refuses document type and entity declarations before the text reaches
  the XML parser (as the URDF reader does), checks that the root element is ``<sdf>``
  and reads its ``version`` (1.4 to 1.11; 1.10 and 1.11 are read with 1.9's rules).
* ``select_model`` picks the ``<model>`` (a child of ``<sdf>`` or of a ``<world>``) by
  name, or the only one.
* ``text_floats``, ``child_float``, ``child_bool`` and ``child_text`` read element
  values (SDFormat keeps values in element text, not attributes); errors name ``what``.
* ``pose`` reads a ``<pose>`` element: ``x y z roll pitch yaw`` (rotation
  ``Rz(yaw) Ry(pitch) Rx(roll)``, as URDF), or since 1.9 ``rotation_format="quat_xyzw"``
  (``x y z qx qy qz qw``, scalar last) and ``degrees="true"``; it returns the 4x4
  transform and the frame it is relative to (``relative_to`` since 1.7, the ``frame``
  attribute of 1.5/1.6 when not empty; None: the element's default frame).
"""
import math

import numpy as np

from ..spatial import quat_to_matrix
from ..spatial.rpy import rpy_to_matrix
from . import _xml

_VERSIONS = ((1, 4), (1, 11))


def parse_sdf(text, source):
    """``(root element, (major, minor))`` of SDFormat text; no DTD or entity declarations."""
    root = _xml.parse_root(text, source, "sdf", "SDFormat")
    text_version = root.get("version")
    if not text_version:
        raise ValueError(f"{source}: <sdf> has no version attribute (SDFormat 1.4 to 1.11 are read)")
    try:
        version = tuple(int(p) for p in text_version.strip().split("."))[:2]
    except ValueError:
        raise ValueError(f"{source}: <sdf version={text_version!r}> is not a version number") from None
    if len(version) != 2 or not _VERSIONS[0] <= version <= _VERSIONS[1]:
        raise ValueError(f"{source}: SDFormat version {text_version} is not supported "
                         f"(1.4 to 1.11 are read)")
    return root, version


def select_model(root, name, source):
    """The ``<model>`` element named ``name`` (or the only one when ``name`` is None)."""
    models = root.findall("model") + [m for w in root.findall("world") for m in w.findall("model")]
    if not models:
        raise ValueError(f"{source}: no <model> element (as a child of <sdf> or of a <world>)")
    names = [m.get("name") for m in models]
    if name is None:
        if len(models) > 1:
            raise ValueError(f"{source}: {len(models)} models {names}; pass model=<name> to pick one")
        return models[0]
    if not isinstance(name, str):
        raise TypeError(f"model must be a model name (str) or None, got {type(name).__name__}")
    for m in models:
        if m.get("name") == name:
            return m
    raise ValueError(f"{source}: no model named {name!r}; the file has {names}")


def text_floats(el, n, what):
    """``n`` finite floats from the text of ``el``."""
    return _xml.floats(el.text, n, what)


def child_text(el, tag, default=None):
    """The stripped text of child ``tag`` of ``el`` (``default`` if either is absent)."""
    c = None if el is None else el.find(tag)
    if c is None or c.text is None:
        return default
    return c.text.strip()


def child_float(el, tag, what, default=None):
    """One finite float from child element ``tag`` of ``el``; ``default`` when absent."""
    text = child_text(el, tag)
    if text is None:
        return default
    return float(_xml.floats(text, 1, f"{what} <{tag}>")[0])


def child_bool(el, tag, what, default=False):
    """A boolean child element (``1``/``true`` or ``0``/``false``)."""
    text = child_text(el, tag)
    if text is None:
        return default
    if text.lower() in ("1", "true"):
        return True
    if text.lower() in ("0", "false"):
        return False
    raise ValueError(f"{what} <{tag}>: expected true/false or 1/0, got {text!r}")


def _flag(value, what):
    if value is None or value.strip().lower() in ("", "false", "0"):
        return False
    if value.strip().lower() in ("true", "1"):
        return True
    raise ValueError(f"{what}: expected true or false, got {value!r}")


def pose(el, version, what):
    """``(T (4, 4), relative_to or None)`` of the ``<pose>`` child of ``el`` (identity if absent)."""
    p = None if el is None else el.find("pose")
    if p is None:
        return np.eye(4), None
    what = f"{what} <pose>"
    rel = p.get("relative_to") if version >= (1, 7) else p.get("frame")
    rel = rel.strip() if rel and rel.strip() else None
    text = (p.text or "").strip()
    T = np.eye(4)
    if not text:
        return T, rel
    fmt = (p.get("rotation_format") or "euler_rpy").strip()
    if fmt == "euler_rpy":
        v = _xml.floats(text, 6, what)
        rpy = v[3:]
        if _flag(p.get("degrees"), f"{what} degrees"):
            rpy = np.radians(rpy)
        T[:3, :3] = rpy_to_matrix(rpy)
    elif fmt == "quat_xyzw":
        v = _xml.floats(text, 7, what)
        n = math.sqrt(float(v[3:] @ v[3:]))
        if n < 1e-12:
            raise ValueError(f"{what}: the quaternion {v[3:].tolist()} is zero")
        T[:3, :3] = quat_to_matrix(v[3:] / n)
    else:
        raise ValueError(f"{what}: rotation_format must be 'euler_rpy' or 'quat_xyzw', got {fmt!r}")
    T[:3, 3] = v[:3]
    return T, rel
