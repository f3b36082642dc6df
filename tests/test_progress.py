"""Progress on stderr: the compile notice and the bar's estimate."""
import io
import time

from multibody.progress import ProgressBar, compiling_notice


def test_compiling_notice_only_for_slow_blocks():
    out = io.StringIO()
    with compiling_notice("kernels", after=0.05, stream=out):
        time.sleep(0.2)  # stands for a compile
    text = out.getvalue()
    assert text.startswith("multibody: compiling kernels (first run only; cached afterwards) ... done in ")
    assert text.endswith(" s\n")
    quiet = io.StringIO()
    with compiling_notice("kernels", after=5.0, stream=quiet):
        pass  # a load from the cache
    assert quiet.getvalue() == ""


def test_progress_estimate_starts_after_a_slow_first_block():
    out = io.StringIO()
    bar = ProgressBar(after=0.0, stream=out)
    time.sleep(1.0)  # a compile before the first update does not count
    bar.update(0.5, "half")
    time.sleep(0.05)
    bar.update(0.75, "three quarters")
    bar.close()
    eta = float(out.getvalue().rsplit("eta ", 1)[1].split(" s")[0])
    assert eta < 0.2  # 0.05 s per quarter: 0.05 s left; counting the 1 s before would give 0.35 s
    assert out.getvalue().endswith("\n")
