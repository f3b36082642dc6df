"""README.md's code runs as written: every ```python block, in order, in one namespace,
with a temporary folder as the working directory (files the snippets write land there),
as the code of a script (``__name__ == "__main__"``). A block that starts local processes
(a Dask ``LocalCluster``) also runs alone, pasted into a script file run by ``python``: its
workers import that file again, which is what the ``__main__`` guard is for.

The snippets load robot files of example-robot-data (a test extra). A block that still
names a file that does not exist after ``pip install ".[test]"`` is listed in
``NOT_YET_RUNNABLE`` (strict xfail: fixing it makes the test fail until it is removed).
"""
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)

#: marker text -> why the block does not run yet (sections owned elsewhere)
NOT_YET_RUNNABLE = {}


def python_blocks(text):
    """[(line number, code)] of the ```python blocks of a Markdown text, in order."""
    return [(text.count("\n", 0, mt.start()) + 1, mt.group("body")) for mt in _FENCE.finditer(text)
            if mt.group("info").strip().split()[:1] == ["python"]]


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_block_extraction():
    assert python_blocks("x\n```python\na = 1\n```\n```bash\nls\n```\n") == [(2, "a = 1\n")]
    assert len(BLOCKS) >= 5


def test_setup_says_where_to_run():
    text = README.read_text(encoding="utf-8")
    setup = text[text.index("## Set-up"):text.index("## Quick start")]
    assert "root of the repository" in setup and 'pip install ".[plot]" && multibody demo' in setup


@pytest.fixture(scope="module")
def namespace(tmp_path_factory):
    import os
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        pass
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("readme"))
    yield {"__name__": "__main__"}  # as a script's: blocks guarded by `if __name__ == "__main__":` run
    os.chdir(cwd)


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=[f"line{ln}" for ln, _ in BLOCKS])
def test_readme_block_runs(namespace, index, request):
    line, code = BLOCKS[index]
    why = next((w for k, w in NOT_YET_RUNNABLE.items() if k in code), None)
    if why:
        request.applymarker(pytest.mark.xfail(reason=why, strict=True))
    exec(compile(code, f"README.md:{line}", "exec"), namespace)  # noqa: S102 (the README's own code)


SCRIPT_BLOCKS = [(line, code) for line, code in BLOCKS if "LocalCluster(" in code]


def test_a_block_that_starts_processes_is_a_script():
    assert SCRIPT_BLOCKS, "the README's Dask block is gone: update SCRIPT_BLOCKS' marker"
    for line, code in SCRIPT_BLOCKS:
        assert code.startswith("import ") and 'if __name__ == "__main__":' in code, f"README.md:{line}"


@pytest.mark.parametrize("index", range(len(SCRIPT_BLOCKS)), ids=[f"line{ln}" for ln, _ in SCRIPT_BLOCKS])
def test_readme_script_block_runs_as_a_script_file(index, tmp_path):
    """Pasted into a file and run by ``python file.py``, as a user would (Dask's nanny
    workers start by importing the file: unguarded, they fail to start)."""
    import subprocess
    import sys
    line, code = SCRIPT_BLOCKS[index]
    script = tmp_path / "readme_script.py"
    script.write_text(code, encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"README.md:{line} as a script:\n{r.stdout[-3000:]}{r.stderr[-3000:]}"


@pytest.mark.skipif(not __import__("os").environ.get("MULTIBODY_FRESH_VENV"),
                    reason="set MULTIBODY_FRESH_VENV=1: a fresh clone, venv and pip install (network, minutes)")
def test_readme_set_up_on_a_fresh_venv_in_a_fresh_directory():
    import subprocess
    script = Path(__file__).with_name("readme_fresh_venv.sh")
    r = subprocess.run(["sh", str(script)], capture_output=True, text=True, timeout=3600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    assert "double pendulum demo: finished" in r.stdout and "README set-up followed" in r.stdout
