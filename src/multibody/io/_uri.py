"""Resolution of the file references of a URDF or SDFormat model (mesh ``filename``s), inside
the model's folder and the package roots it names.

``package://NAME/rest`` names a file inside the package NAME. Without a ROS installation a
package root is looked for among the model folder's ancestors (a folder named NAME), beside
them (a sub-folder NAME of one) and then in the folders the caller gives (``package_dirs``:
a package folder NAME, or a folder holding it). A folder found by that search is a package
root only if it holds a ``package.xml`` (it is a ROS package), so that a name such as
``home`` or ``etc`` cannot make a system folder a root; ``package_dirs`` need none.
``file://path`` and plain paths are relative to the model's folder.

Containment (issue 19): a reference resolves only to a file inside the model's folder or a
folder of ``package_dirs`` (plain and ``file://`` paths), or inside the package root it
names (``rest`` may not climb out of it); a symlink must lead inside too. Whether a
reference leaves is decided from its text, before anything is looked up, so a refusal says
nothing about whether the file exists (a symlink inside that leads out is refused once
found). ``allow_outside=True`` looks up as before these rules: absolute paths anywhere,
``..`` anywhere, folders named NAME without ``package.xml``.
"""
import os
from pathlib import Path

from . import _xml
from ._files import inside, lexically_inside

_PACKAGE = "package://"
_FILE = "file://"
_MARKER = "package.xml"


def as_path(p):
    """``p`` (str or os.PathLike) as a ``pathlib.Path``."""
    return Path(os.fspath(p))


def as_dir_list(package_dirs):
    """``package_dirs`` (None, one folder or a list of folders) as a list of absolute ``Path``s
    (a relative one taken from the current folder now, not when a viewer later reads)."""
    if package_dirs is None:
        return []
    if isinstance(package_dirs, (str, os.PathLike)):
        package_dirs = [package_dirs]
    return [Path(os.path.abspath(os.fspath(d))) for d in package_dirs]


def _climbs(rel):
    """Whether the relative path ``rel`` leaves the folder it is taken in (as written)."""
    norm = os.path.normpath(rel)
    return os.path.isabs(rel) or norm == os.pardir or norm.startswith(os.pardir + os.sep)


class FileRefs:
    """The file references of one model: ``resolve`` each, then ``roots`` are the folders its
    files may come from (the model's folder, ``package_dirs``, the package roots found;
    None with ``allow_outside``) and ``refused`` the references that led elsewhere."""

    def __init__(self, base_dir=None, package_dirs=None, allow_outside=False):
        self.base = None if base_dir is None else as_path(base_dir)
        self.dirs = as_dir_list(package_dirs)
        self.allow_outside = bool(allow_outside)
        self.found_roots = []
        self.refused = []

    @property
    def roots(self):
        if self.allow_outside:
            return None
        folders = ([self.base] if self.base is not None else []) + self.dirs + self.found_roots
        return tuple(dict.fromkeys(str(f) for f in folders))

    def _is_root(self, folder):
        return self.allow_outside or (folder / _MARKER).is_file()

    def _package_roots(self, name):
        """The folders that may be package ``name``, nearest first (see the module docstring)."""
        found = []
        for a in [] if self.base is None else [self.base, *self.base.parents]:
            found += [f for f in ([a] if a.name == name else []) + [a / name] if self._is_root(f)]
        for d in self.dirs:
            found += [d, d / name] if d.name == name else [d / name]
        return found

    def _candidates(self, uri):
        """[(root or None, candidate path)], or None when the reference leaves its roots."""
        if uri.startswith(_PACKAGE):
            name, _, rel = uri[len(_PACKAGE):].lstrip("/").partition("/")
            if not name or not rel:
                return []
            if not self.allow_outside and (name in (os.curdir, os.pardir) or _climbs(rel)):
                return None
            return [(root, root / rel) for root in self._package_roots(name)]
        p = Path(uri[len(_FILE):] if uri.startswith(_FILE) else uri)
        if self.allow_outside:
            return [(None, p)] if p.is_absolute() else [] if self.base is None else [(None, self.base / p)]
        if not p.is_absolute():
            return [] if self.base is None else None if _climbs(str(p)) else [(self.base, self.base / p)]
        roots = [r for r in ([self.base] if self.base is not None else []) + self.dirs if lexically_inside(p, [r])]
        return [(r, p) for r in roots] or None

    def resolve(self, uri):
        """``(absolute path, True)`` for a file found inside its roots, ``(uri, False)`` when
        none is found or the reference is refused (then also listed in ``refused``)."""
        candidates = self._candidates(uri)
        if candidates is None:
            self.refused.append(uri)
            return uri, False
        for root, path in candidates:
            if not path.is_file():
                continue
            if not self.allow_outside and root is not None and not inside(path, [root]):  # a symlink leading out
                self.refused.append(uri)
                return uri, False
            if root is not None and root != self.base and root not in self.dirs and root not in self.found_roots:
                self.found_roots.append(root)
            return str(path.resolve()), True
        return uri, False

    def mesh_entry(self, uri, lookup=None):
        """The metadata of a mesh reference ``uri`` (looked up as ``lookup``, default ``uri``):
        ``filename`` (the absolute path, or ``uri`` when unresolved), ``resolved``, ``uri``,
        and ``refused: True`` when it led outside."""
        n = len(self.refused)
        filename, found = self.resolve(uri if lookup is None else lookup)
        entry = {"filename": filename if found else uri, "resolved": found, "uri": uri}
        if len(self.refused) > n:
            entry["refused"] = True
        return entry

    def finish(self, m, source):
        """Record ``roots`` on the model (``m.file_roots``) and warn once about the refused
        references, naming them."""
        m.file_roots = self.roots
        warn_outside(source, self.refused)


def warn_outside(source, refs):
    """One warning naming the file references of model ``source`` that lead outside (if any)."""
    if refs:
        shown = ", ".join(repr(u) for u in refs[:3]) + (", ..." if len(refs) > 3 else "")
        _xml.warn_user(f"{source}: {len(refs)} mesh file reference(s) lead outside the model's folder and the "
                       f"package roots it names and are not read: {shown}; package_dirs=/mesh_dirs=[...] allows "
                       "a folder, allow_outside=True any")


def model_roots(base_dir, dirs, allow_outside):
    """The folders a model file's meshes may come from: its folder and ``dirs`` (None with
    ``allow_outside``: anywhere)."""
    return None if allow_outside else tuple(str(d) for d in [*([] if base_dir is None else [base_dir]),
                                                             *as_dir_list(dirs)])


def mesh_files_outside(m, roots):
    """The mesh ``filename``s of the model's visuals and collisions (those not marked
    unresolved) that do not lie inside ``roots`` (None: none)."""
    if roots is None:
        return []
    out = []
    for b in [m.world, *m.bodies]:
        for v in [*getattr(b, "visuals", ()), *getattr(b, "collisions", ())]:
            f = v.get("filename") if isinstance(v, dict) and v.get("type") == "mesh" else None
            if isinstance(f, str) and f and v.get("resolved", True) is not False and not inside(f, roots):
                out.append(f)
    return out


def resolve_uri(uri, base_dir=None, package_dirs=None, allow_outside=False):
    """Resolve a URDF file reference to an absolute path.

    ``package://NAME/rest`` is looked for as ``A/rest`` for every ancestor A of
    ``base_dir`` named NAME and as ``A/NAME/rest`` (a sibling package), nearest first, each
    a ROS package (``package.xml``); then in ``package_dirs`` (each a package folder NAME
    or a folder holding packages). ``file://path`` and plain paths are taken relative to
    ``base_dir``. The file must lie inside the package root, ``base_dir`` or a folder of
    ``package_dirs`` unless ``allow_outside`` (see the module docstring).

    Returns ``(path, True)`` with the absolute path of an existing file, or
    ``(uri, False)`` when no file is found or the reference leads outside.
    """
    return FileRefs(base_dir, package_dirs, allow_outside).resolve(uri)
