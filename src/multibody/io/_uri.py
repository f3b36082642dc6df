"""Resolution of the file references in a URDF (mesh ``filename`` attributes).

``package://NAME/rest`` names a file inside the ROS package NAME. Without a ROS
installation, packages are looked for next to the URDF file (among the ancestors of
its folder, and their sub-folders) and then in folders given by the caller.
``file://path`` and plain paths are relative to the URDF file's folder.
"""
import os
from pathlib import Path

_PACKAGE = "package://"
_FILE = "file://"


def as_path(p):
    """``p`` (str or os.PathLike) as a ``pathlib.Path``."""
    return Path(os.fspath(p))


def as_dir_list(package_dirs):
    """``package_dirs`` (None, one folder or a list of folders) as a list of ``Path``."""
    if package_dirs is None:
        return []
    if isinstance(package_dirs, (str, os.PathLike)):
        package_dirs = [package_dirs]
    return [as_path(d) for d in package_dirs]


def _package_candidates(name, rel, folders):
    """Where ``package://name/rel`` may lie, for each folder in order: the folder itself
    when it is the package ``name``, then its sub-folder ``name``."""
    out = []
    for folder in folders:
        if folder.name == name:
            out.append(folder / rel)
        out.append(folder / name / rel)
    return out


def resolve_uri(uri, base_dir=None, package_dirs=None):
    """Resolve a URDF file reference to an absolute path.

    ``package://NAME/rest`` is looked for as ``A/rest`` for every ancestor A of
    ``base_dir`` named NAME and as ``A/NAME/rest`` (a sibling package), nearest first;
    then in ``package_dirs`` (each a package folder NAME or a folder holding packages).
    ``file://path`` and plain paths are taken relative to ``base_dir``.

    Returns ``(path, True)`` with the absolute path of an existing file, or
    ``(uri, False)`` when no file is found.
    """
    base = None if base_dir is None else as_path(base_dir)
    dirs = as_dir_list(package_dirs)
    if uri.startswith(_PACKAGE):
        rest = uri[len(_PACKAGE):].lstrip("/")
        name, _, rel = rest.partition("/")
        if not name or not rel:
            return uri, False
        ancestors = [] if base is None else [base, *base.parents]
        candidates = _package_candidates(name, rel, [*ancestors, *dirs])
    else:
        p = Path(uri[len(_FILE):] if uri.startswith(_FILE) else uri)
        if p.is_absolute():
            candidates = [p]
        elif base is not None:
            candidates = [base / p]
        else:
            candidates = []
    for c in candidates:
        if c.is_file():
            return str(c.resolve()), True
    return uri, False
