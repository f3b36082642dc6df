"""MkDocs hook: drop the Sphinx role prefixes left in rendered docstrings.

Some docstrings cross-reference in reStructuredText (``:class:`LiegroupSpace```), which
Markdown renders as the text ``:class:`` followed by inline code. This hook removes the
``:role:`` prefix so that only the code span remains.
"""
import re

_ROLE = re.compile(r":(?:py:)?(?:class|meth|func|mod|attr|data|exc|obj|const):(?=<code>)")


def on_page_content(html, page, config, files, **kwargs):
    return _ROLE.sub("", html)
