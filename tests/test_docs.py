"""The documentation site: its tutorial code runs, and ``mkdocs build --strict`` passes.

Every fenced ```` ```python ```` block of the executed pages runs, in order, in one fresh
namespace per page, with a temporary folder as the working directory (so files the
examples write land there), and with a non-interactive matplotlib backend. A block
fenced as ```` ```python {.no-run} ```` would be skipped; none is today.
"""
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: pages whose python blocks are executed (the tutorials, getting started, conventions)
EXECUTED = ["index.md", "getting_started.md", "conventions.md", *sorted(
    str(p.relative_to(DOCS)) for p in (DOCS / "tutorials").glob("*.md"))]

_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                    re.MULTILINE | re.DOTALL)


def python_blocks(text):
    """[(line number, code)] of the ```python blocks of a Markdown text, in order."""
    out = []
    for mt in _FENCE.finditer(text):
        info = mt.group("info").strip()
        lang = info.split()[0].strip("{}.") if info else ""
        if lang != "python" or "no-run" in info:
            continue
        indent = len(mt.group("indent"))
        body = "\n".join(line[indent:] for line in mt.group("body").splitlines())
        out.append((text.count("\n", 0, mt.start()) + 1, body))
    return out


def test_block_extraction():
    text = "x\n```python\na = 1\n```\n\n```bash\nls\n```\n    ```python\n    b = 2\n    ```\n"
    assert python_blocks(text) == [(2, "a = 1"), (9, "b = 2")]


def test_executed_pages_exist():
    for page in EXECUTED:
        assert (DOCS / page).is_file(), page
    assert len(EXECUTED) >= 7


@pytest.mark.parametrize("page", EXECUTED)
def test_page_code_runs(page, tmp_path, monkeypatch):
    blocks = python_blocks((DOCS / page).read_text(encoding="utf-8"))
    if page.startswith("tutorials/"):
        assert blocks, f"{page} has no python block"
    if importlib.util.find_spec("matplotlib") is not None:
        import matplotlib
        matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{Path(page).stem}"}
    for line, code in blocks:
        try:
            exec(compile(code, f"docs/{page}:{line}", "exec"), namespace)
        except Exception as e:
            raise AssertionError(f"docs/{page}, the python block at line {line} failed: "
                                 f"{type(e).__name__}: {e}") from e
    if importlib.util.find_spec("matplotlib") is not None:
        import matplotlib.pyplot as plt
        plt.close("all")


def test_nav_lists_every_page():
    yaml_text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", yaml_text, re.MULTILINE))
    assert pages <= listed, f"pages missing from the nav of mkdocs.yml: {sorted(pages - listed)}"


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install mkdocs-material 'mkdocstrings[python]', "
                    "part of the test extra)")
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"mkdocs build --strict failed:\n{r.stdout}\n{r.stderr}"
    assert (site / "index.html").is_file()
    assert (site / "api" / "algorithms" / "index.html").is_file()
