"""MkDocs hook: pages include sections of the README, so the site never drifts from it.

A page line ``<!-- readme-section: Performance -->`` is replaced, at build time, by the
body of the README's ``## Performance`` section (up to the next ``## `` heading).
A missing section fails the build with a message naming it.
"""
import re
from pathlib import Path

_MARK = re.compile(r"^<!-- readme-section: (?P<title>.+?) -->[ \t]*$", re.MULTILINE)


def readme_section(readme_text, title):
    """The body of the ``## title`` section of a Markdown text (without its heading)."""
    m = re.search(rf"^## {re.escape(title)}[ \t]*\n(?P<body>.*?)(?=^## |\Z)", readme_text,
                  re.MULTILINE | re.DOTALL)
    if m is None:
        raise ValueError(f"README.md has no '## {title}' section")
    return m.group("body").strip("\n") + "\n"


def on_page_markdown(markdown, page, config, files, **kwargs):
    if "readme-section:" not in markdown:
        return markdown
    readme = (Path(config["config_file_path"]).parent / "README.md").read_text(encoding="utf-8")
    return _MARK.sub(lambda m: readme_section(readme, m.group("title")), markdown)
