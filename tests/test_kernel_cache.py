"""The on-disk kernel cache notices a change in a helper file (multibody._kernel_cache)."""
import os
import subprocess
import sys
import textwrap

import multibody as mb
from multibody import _kernel_cache

CALLER = """
from numba import njit
from .helper import g

@njit(cache=True)
def f(x):
    return 2.0 * g(x)
"""


def _package(root, name, stamped, add):
    pkg = root / name
    pkg.mkdir()
    init = "import os\nfrom multibody._kernel_cache import install\ninstall(os.path.dirname(__file__))\n"
    (pkg / "__init__.py").write_text(init if stamped else "")
    (pkg / "caller.py").write_text(CALLER)
    _write_helper(pkg, add)
    return pkg


def _write_helper(pkg, add):
    (pkg / "helper.py").write_text(textwrap.dedent(f"""
        from numba import njit

        @njit(cache=True)
        def g(x):
            return x + {add}
        """))


def _run(root, name):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), *sys.path]))
    env.pop("NUMBA_CACHE_DIR", None)  # the packages' own __pycache__, as an installed copy has
    out = subprocess.run([sys.executable, "-c", f"from {name}.caller import f; print(f(1.0))"],
                         env=env, capture_output=True, text=True, timeout=300, check=True)
    return float(out.stdout.split()[-1])


def test_an_edited_helper_recompiles_its_callers_and_without_the_stamp_it_would_not(tmp_path):
    stamped = _package(tmp_path, "stamped_pkg", True, 1.0)
    plain = _package(tmp_path, "plain_pkg", False, 1.0)
    assert _run(tmp_path, "stamped_pkg") == 4.0 and _run(tmp_path, "plain_pkg") == 4.0
    assert list((stamped / "__pycache__").glob("caller.f-*.nbi"))  # it was cached
    _write_helper(stamped, 2.0)
    _write_helper(plain, 2.0)
    assert _run(tmp_path, "stamped_pkg") == 6.0
    assert _run(tmp_path, "plain_pkg") == 4.0  # Numba alone loads the caller stale


def test_the_package_kernels_carry_the_fingerprint():
    from multibody.kernels import forward_dynamics
    root = os.path.dirname(os.path.abspath(mb.__file__))
    locator = forward_dynamics.forward_dynamics._cache._impl.locator
    assert locator.get_source_stamp()[1] == _kernel_cache.fingerprint(root)
    assert _kernel_cache.install(root) == []  # once is enough


def test_fingerprint_sees_numba_files_only(tmp_path):
    (tmp_path / "a.py").write_text("import numba\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    before = _kernel_cache.fingerprint(tmp_path)
    (tmp_path / "b.py").write_text("x = 2\n")
    assert _kernel_cache.fingerprint(tmp_path) == before
    (tmp_path / "a.py").write_text("import numba  # edited\n")
    assert _kernel_cache.fingerprint(tmp_path) != before


def test_fingerprint_sees_constants_the_kernels_fold_in(tmp_path):
    """A constants file of kernels/ that never names Numba (flex_layout.py did not), and one
    that names it capitalised only (layout.py: "Numba folds them"), both count: an edited
    column index must recompile the kernels that folded the old one in."""
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "flex_layout.py").write_text("POSE_COLS = 15\n")
    (tmp_path / "kernels" / "layout.py").write_text('"""Numba folds these."""\nW_PR = 182\n')
    (tmp_path / "cli.py").write_text("x = 1\n")
    before = _kernel_cache.fingerprint(tmp_path)
    (tmp_path / "cli.py").write_text("x = 2\n")
    assert _kernel_cache.fingerprint(tmp_path) == before
    edits = (("flex_layout.py", "POSE_COLS = 12\n"), ("layout.py", '"""Numba folds these."""\nW_PR = 181\n'))
    for name, edited in edits:
        (tmp_path / "kernels" / name).write_text(edited)
        after = _kernel_cache.fingerprint(tmp_path)
        assert after != before, name
        before = after
