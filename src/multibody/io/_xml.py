"""Safe reading of URDF text and parsing of element attributes.

* ``decode`` turns the bytes of a file into text (BOM, else the ``<?xml encoding=...?>``
  declaration, else UTF-8).
* ``parse_robot`` refuses document type and entity declarations (``<!DOCTYPE``,
  ``<!ENTITY``) *before* the text reaches the XML parser, so entity expansion
  ("billion laughs") and external entities cannot run; it then checks that the root
  element is ``<robot>`` (``parse_root``: the same for SDFormat's ``<sdf>``).
* ``root_kind`` maps a loader's ``floating_base`` option to the root hinge's kind.
* ``floats``, ``float_attr``, ``rgba``, ``origin`` and ``name`` read attribute values;
  their errors name the element (``what``) and the offending text.
* ``warn_user`` issues a ``UserWarning`` attributed to the first caller outside
  ``multibody.io``, however deep inside the reader it is raised.
"""
import inspect
import math
import os
import re
import warnings
import xml.etree.ElementTree as ET

import numpy as np

from ..spatial.rpy import rpy_to_matrix

_DTD = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_ENCODING_DECL = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def decode(data, source):
    """Text of an XML document: BOM, else the declared encoding, else UTF-8."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        enc = "utf-16"
    else:
        decl = _ENCODING_DECL.match(data[:200])
        enc = decl.group(1).decode("ascii") if decl else "utf-8"
        if enc.lower().replace("-", "").replace("_", "") == "utf8":
            enc = "utf-8-sig"
    try:
        return data.decode(enc)
    except LookupError:
        raise ValueError(f"{source}: unknown text encoding {enc!r}") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{source}: not valid {enc} text ({e.reason} at byte {e.start})") from None


def parse_root(text, source, tag, file_kind):
    """The root element of XML text, which must be ``<tag>`` (any with ``tag`` None); no DTD or
    entity declarations (``file_kind`` names the format in the error: "URDF", "SDFormat")."""
    if _DTD.search(text):
        raise ValueError(f"{source}: entity/DTD declarations are not allowed in {file_kind} files")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        line, col = getattr(e, "position", (None, None))
        msg = str(e).split(":")[0]
        raise ValueError(f"{source}: malformed XML at line {line}, column {col}: {msg}") from None
    if tag is not None and root.tag != tag:
        raise ValueError(f"{source}: the root element must be <{tag}>, got <{root.tag}>")
    return root


def parse_robot(text, source):
    """The ``<robot>`` root element of URDF text; no DTD or entity declarations allowed."""
    return parse_root(text, source, "robot", "URDF")


def root_kind(floating_base):
    """Hinge kind of the root hinge for a loader's ``floating_base`` option (None: welded)."""
    if isinstance(floating_base, (bool, np.bool_)):
        return "free" if floating_base else None
    if isinstance(floating_base, str) and floating_base == "quaternion":
        return "free_quat"
    raise ValueError(f"floating_base must be False, True or 'quaternion', got {floating_base!r}")


def floats(text, n, what):
    """Parse ``n`` finite floats from a whitespace-separated attribute value."""
    parts = (text or "").split()
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"{what}: expected {n} numbers, got {text!r}") from None
    if len(vals) != n or not all(math.isfinite(v) for v in vals):
        raise ValueError(f"{what}: expected {n} finite numbers, got {text!r}")
    return np.array(vals)


def float_attr(el, attr, what, default=None):
    """One finite float from attribute ``attr`` of ``el``; ``default`` if either is absent."""
    if el is None or el.get(attr) is None:
        return default
    return float(floats(el.get(attr), 1, f"{what} {attr}")[0])


def rgba(material, what):
    """The ``<color rgba>`` of a ``<material>`` element as 4 floats, or None if it has none."""
    color = material.find("color")
    if color is None or color.get("rgba") is None:
        return None
    return floats(color.get("rgba"), 4, f"{what} rgba")


def origin(el, what):
    """4x4 transform of the ``<origin>`` child of ``el`` (identity if absent)."""
    T = np.eye(4)
    o = None if el is None else el.find("origin")
    if o is None:
        return T
    if o.get("xyz") is not None:
        T[:3, 3] = floats(o.get("xyz"), 3, f"{what} origin xyz")
    if o.get("rpy") is not None:
        T[:3, :3] = rpy_to_matrix(floats(o.get("rpy"), 3, f"{what} origin rpy"))
    return T


def name(el, what, source):
    """The non-empty ``name`` attribute of ``el`` (``what``: "links" or "joints", for the error)."""
    value = el.get("name")
    if not value:
        raise ValueError(f"{source}: a <{el.tag}> element has no name attribute; {what} need names")
    return value


def warn_user(message):
    """Issue ``UserWarning(message)`` attributed to the first caller outside ``multibody.io``."""
    frame = inspect.currentframe().f_back
    level = 2
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        frame = frame.f_back
        level += 1
    del frame
    warnings.warn(message, UserWarning, stacklevel=level)
