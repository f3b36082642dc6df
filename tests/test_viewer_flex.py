"""The viewer draws a modal body as a line through its nodes at their deformed poses, so a
replay shows the beam bending (the rest of the viewer: test_viewer.py, whose Chromium
helpers this file uses)."""
import numpy as np
import pytest

pytest.importorskip("viser")
pytest.importorskip("trimesh")

import multibody as mb  # noqa: E402
from multibody.flex import beam_modes  # noqa: E402
from multibody.viz._scene import segment_points, skeleton_segments  # noqa: E402
from test_viewer import _free_port, _robot_pixels, needs_chromium  # noqa: E402


def _flexible_pendulum():
    data = beam_modes(1.0, EI=20.0, rhoA=0.5, n_modes=3, nodes=[0.25, 0.5, 0.75, 1.0])
    m = mb.Multibody()
    beam = m.add_modal_body("beam", modal_data=data, nodes={"n1": 0, "n2": 1, "n3": 2, "tip": 3})
    m.add_hinge(None, beam, "pin", axis=(0, 1, 0))
    q = np.zeros(m.nq)
    q[0], q[m.modal_slice(beam)] = 0.4, (0.15, 0.02, 0.0)  # swung and bent (tip ~0.4 m)
    return m, q


def test_skeleton_follows_the_deformed_nodes():
    m, q = _flexible_pendulum()
    segments = skeleton_segments(m, True)
    assert [(a, b) for a, _, b, _ in segments] == [("beam", "n1"), ("n1", "n2"), ("n2", "n3"), ("n3", "tip")]
    poses = {n: m.frame_pose(q, n) for n in ("beam", "n1", "n2", "n3", "tip")}
    pts = segment_points(segments, poses)
    np.testing.assert_allclose(pts[-1, 1], m.frame_pose(q, "tip")[:3, 3], atol=1e-6)
    along = pts[:, 1] - pts[0, 0]
    bend = np.linalg.norm(np.cross(along[-1], along[1])) / np.linalg.norm(along[-1])
    assert bend > 0.02  # the line through the nodes is curved, not the undeformed straight beam
    v = mb.view(m, q, port=_free_port(), verbose=False, skeleton=True)
    try:
        np.testing.assert_allclose(v._poses["tip"][0], poses["tip"])
        q2 = q.copy()
        q2[1] = -0.15
        v.set_q(q2)  # bent the other way
        assert v._poses["tip"][0][2, 3] < poses["tip"][2, 3]
    finally:
        v.close()


@needs_chromium
def test_bent_beam_is_drawn_in_chromium(tmp_path):
    m, q = _flexible_pendulum()
    _robot_pixels(m, q, tmp_path / "beam.png", 500, dict(skeleton=False), skeleton=True)
