"""Test helper: find the robot descriptions of the installed ``example-robot-data``.

``robots_dir()`` is the ``.../share/example-robot-data/robots`` folder (or None when
the distribution is not installed); ``urdf_files()`` lists its ``.urdf`` files.
Looked up, in order: the ``example_robot_data`` Python module if it exists, the
files of the ``example-robot-data`` distribution (``importlib.metadata``), then every
``sys.path`` entry's ``cmeel.prefix/share/example-robot-data/robots``.
"""
import functools
import importlib.metadata
import sys
from pathlib import Path

_TAIL = ("share", "example-robot-data", "robots")


def _is_robots_dir(p):
    return p is not None and p.is_dir() and any(p.glob("*/*/*.urdf"))


def _from_module():
    try:
        import example_robot_data  # noqa: F401  (not shipped by every version)
    except ImportError:
        return None
    for attr in ("EXAMPLE_ROBOT_DATA_MODEL_DIR", "MODEL_DIR"):
        d = getattr(example_robot_data, attr, None)
        if d and _is_robots_dir(Path(d)):
            return Path(d)
    try:
        from example_robot_data.path import EXAMPLE_ROBOT_DATA_MODEL_DIR as d
        return Path(d) if _is_robots_dir(Path(d)) else None
    except ImportError:
        return None


def _from_distribution():
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        parts = Path(str(f)).parts
        for i in range(len(parts) - 2):
            if parts[i:i + 3] == _TAIL:
                d = Path(f.locate()).resolve()
                for _ in range(len(parts) - i - 3):
                    d = d.parent
                if _is_robots_dir(d):
                    return d
    return None


def _from_sys_path():
    for entry in sys.path:
        d = Path(entry or ".") / "cmeel.prefix" / Path(*_TAIL)
        if _is_robots_dir(d):
            return d.resolve()
    return None


@functools.lru_cache(maxsize=None)
def robots_dir():
    """The example-robot-data ``robots`` folder (Path), or None if not installed."""
    for find in (_from_module, _from_distribution, _from_sys_path):
        d = find()
        if d is not None:
            return d
    return None


def urdf_files():
    """Sorted list of every ``.urdf`` file in ``robots_dir()`` (empty if none)."""
    d = robots_dir()
    return sorted(d.rglob("*.urdf")) if d is not None else []


def urdf(relative):
    """Path of one robot description, e.g. ``urdf("ur_description/urdf/ur5_robot.urdf")``."""
    d = robots_dir()
    if d is None:
        raise FileNotFoundError("example-robot-data is not installed")
    return d / relative


def cassie_sdf():
    """example-robot-data's ``cassie.sdf`` (with its leg loops), or None when not installed."""
    d = robots_dir()
    p = d / "cassie_description" / "robots" / "cassie.sdf" if d is not None else None
    return p if p is not None and p.is_file() else None


#: Robots used by the peer tests and benchmarks: name -> (relative path, floating base).
ROBOTS = {
    "ur5": ("ur_description/urdf/ur5_robot.urdf", False),
    "panda": ("panda_description/urdf/panda.urdf", False),
    "kinova": ("kinova_description/robots/kinova.urdf", False),
    "xarm7": ("xarm_description/urdf/xarm7.urdf", False),
    "z1": ("z1_description/urdf/z1.urdf", False),
    "baxter": ("baxter_description/urdf/baxter.urdf", False),
    "solo12": ("solo_description/robots/solo12.urdf", True),
    "anymal": ("anymal_b_simple_description/robots/anymal.urdf", True),
    "go2": ("go2_description/urdf/go2.urdf", True),
    "hyq": ("hyq_description/robots/hyq_no_sensors.urdf", True),
    "talos": ("talos_data/robots/talos_reduced.urdf", True),
    "romeo": ("romeo_description/urdf/romeo_small.urdf", True),
    "g1": ("g1_description/urdf/g1_29dof_rev_1_0.urdf", True),
    "icub": ("icub_description/robots/icub_reduced.urdf", True),
}


def robot_urdf(name):
    """Path (str) of one of the ``ROBOTS``."""
    return str(urdf(ROBOTS[name][0]))
