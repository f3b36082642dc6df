"""The files an MJCF model names, checked before MuJoCo reads them (issue 19).

MuJoCo's compiler opens the model file, its ``<include file>``s and its asset files (mesh,
skin, height field, texture and model assets) itself. ``check_mjcf_files`` walks the same
references first: the model file and every include read with a bound (``_files``; all
together at most ``max_bytes``, none included twice, as MuJoCo refuses) and parsed with the
URDF reader's safeguards (no DTD or entity declarations); each reference resolved as MuJoCo
does (includes relative to the model file's folder, assets to ``meshdir``/``texturedir``/
``assetdir`` of ``<compiler>``, themselves relative to it) and refused, naming the file and
the reference, unless it lies inside the model's folder or a folder of ``mesh_dirs``
(decided from the text, so a refusal says nothing about whether the file exists; a symlink
inside must lead inside too), and unless it is a regular file of at most ``max_bytes``.
``allow_outside=True`` keeps the bound checks only. MuJoCo then reads the files, a moment
later.
"""
import os

from . import _xml
from ._files import MAX_BYTES, check_file, inside, lexically_inside, read_bounded
from ._uri import as_dir_list

#: asset tag -> (its file attributes, the <compiler> folder it is looked for in)
_ASSETS = {"mesh": (("file",), "meshdir"), "skin": (("file",), "meshdir"), "hfield": (("file",), "meshdir"),
           "texture": (("file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"),
                       "texturedir"),
           "model": (("file",), None)}


class _Walk:
    """One model's references: ``roots`` (None: anywhere), the model's folder, the limit."""

    def __init__(self, path, mesh_dirs, allow_outside, max_bytes):
        self.source = os.fspath(path)
        self.folder = os.path.dirname(os.path.abspath(self.source))
        self.roots = None if allow_outside else [self.folder, *map(str, as_dir_list(mesh_dirs))]
        self.max_bytes = max_bytes
        self.elements = []
        self.read_bytes = 0
        self.seen = set()

    def checked(self, ref, base, what):
        """The path of reference ``ref`` (relative to ``base``), checked (see the module docstring)."""
        path = os.path.join(base, ref)
        if self.roots is not None and not (lexically_inside(path, self.roots) and inside(path, self.roots)):
            raise ValueError(f"{self.source}: {what} {ref!r} leads outside the model's folder; mesh_dirs=[...] "
                             "allows a folder, allow_outside=True any")
        if os.path.exists(path):  # a missing file: MuJoCo's own error names it
            check_file(path, self.max_bytes)
        return path

    def read(self, path):
        """Parse the XML file ``path`` and, in document order, its includes' elements; the
        files together at most ``max_bytes``, none read twice."""
        real = os.path.realpath(path)
        if real in self.seen:
            raise ValueError(f"{self.source}: {path} is included twice (as MuJoCo refuses)")
        self.seen.add(real)
        left = self.max_bytes - self.read_bytes
        if left < 1:
            raise ValueError(f"{self.source}: its files take more than the limit of {self.max_bytes} bytes "
                             "(max_bytes= raises it)")
        data = read_bounded(path, left)
        self.read_bytes += len(data)
        text = _xml.decode(data, path)
        root = _xml.parse_root(text, path, None, "MJCF")
        for el in root.iter():
            if el.tag == "include" and el.get("file"):
                self.read(self.checked(el.get("file"), self.folder, "<include file>"))
            else:
                self.elements.append(el)


def check_mjcf_files(path, mesh_dirs=None, allow_outside=False, max_bytes=MAX_BYTES):
    """Check the model file ``path`` and every file it names before MuJoCo reads them;
    ValueError naming the file and the refused reference (see the module docstring)."""
    walk = _Walk(path, mesh_dirs, allow_outside, max_bytes)
    walk.read(walk.source)
    dirs = {}
    for el in walk.elements:
        if el.tag == "compiler":
            for key in ("assetdir", "meshdir", "texturedir"):
                if el.get(key) is not None:
                    dirs[key] = el.get(key)
    for el in walk.elements:
        if el.tag not in _ASSETS:
            continue
        attrs, folder_key = _ASSETS[el.tag]
        folder = dirs.get(folder_key, dirs.get("assetdir", "")) if folder_key else ""
        base = os.path.join(walk.folder, folder)
        for attr in attrs:
            if el.get(attr):
                walk.checked(el.get(attr), base, f"<{el.tag} {attr}>")
