"""The algorithms of models with modal (flexible) bodies: the rigid facade hands over here
when its kernel answers MODAL (so rigid models pay nothing for it): poses, strain and total
energy. Forward and inverse dynamics, the mass matrix, the kinetic energy and the mass and
centre of mass are the model's own entry kernels (``c.kernels``: kernels/flex_entry.py),
which the facade calls directly; the functions of those names here call them too, with the
flex argument checks (``flex_operators``' f_ext, ``total_energy``). Kernels:
kernels/flex_kinematics.py, flex_dynamics.py, flex_articulated.py, flex_energy.py.
"""
import numpy as np

from ..kernels import flex_layout as FL
from ..kernels.flex_kinematics import flex_kinematics, node_deformation
from .checks import check_out, check_result, data_object, raise_status, run_kernel
from .entry import check_vector


def _state(c, data, q, u=None, third=None, names=("q", "u", "tau")):
    """(Data, its flex work views ``Data.flex_work``, checked vectors) for a flex call."""
    d = data_object(c, data)
    out = [check_vector(q, c.nq, names[0], c)]
    for x, name in ((u, names[1]), (third, names[2])):
        if x is not None:
            out.append(check_vector(x, c.nu, name, c))  # shape, dtype and finiteness, naming the argument
    return d, d.flex_work, out


def _entry(c, name, data, arrays, names, out):
    """The model's entry kernel ``name`` (``c.kernels``: the flex ones, kernels/flex_entry.py)
    on Data ``data`` and the checked ``arrays``, into ``out``; errors name ``names``."""
    d = data_object(c, data)
    if name in _OUT_SHAPES:
        check_out(out, _OUT_SHAPES[name](c))
    st = run_kernel(c, arrays[0], getattr(c.kernels, name), d.buf, *arrays, out)
    if st:
        raise_status(c, st, names, arrays)
    return out


_OUT_SHAPES = {"forward_dynamics": lambda c: (c.nu,), "inverse_dynamics": lambda c: (c.nu,),
               "mass_matrix": lambda c: (c.nu, c.nu)}  # (a user's out; the others are made here)


def forward_dynamics(m, q, u, tau, out=None, data=None):
    """udot of a model with modal bodies (articulated-body recursion, (6 + n_modes) blocks)."""
    c = m.compiled
    q, u, tau = (check_vector(x, n, name, c) for x, n, name in ((q, c.nq, "q"), (u, c.nu, "u"), (tau, c.nu, "tau")))
    return _entry(c, "forward_dynamics", data, (q, u, tau), ("q", "u", "tau"), np.empty(c.nu) if out is None else out)


def inverse_dynamics(m, q, u, udot, out=None, data=None):
    """tau = M udot + b + K eta + C eta' of a model with modal bodies (the modal rows: the
    modal forces that produce udot)."""
    c = m.compiled
    q, u, udot = (check_vector(x, n, name, c) for x, n, name in ((q, c.nq, "q"), (u, c.nu, "u"), (udot, c.nu, "udot")))
    return _entry(c, "inverse_dynamics", data, (q, u, udot), ("q", "u", "udot"),
                  np.empty(c.nu) if out is None else out)


def mass_matrix(m, q, out=None, data=None):
    """M(q) (nu, nu) of a model with modal bodies (composite inertias with modal blocks)."""
    c = m.compiled
    q = check_vector(q, c.nq, "q", c)
    return _entry(c, "mass_matrix", data, (q,), ("q",), np.empty((c.nu, c.nu)) if out is None else out)


def kinetic_energy(m, q, u, data=None):
    """1/2 sum_k [V_k; eta_k']^T M_k(eta) [V_k; eta_k'] [J] (kernels/flex_energy.py)."""
    c = m.compiled
    q, u = check_vector(q, c.nq, "q", c), check_vector(u, c.nu, "u", c)
    return float(_entry(c, "kinetic_energy", data, (q, u), ("q", "u"), np.empty(1))[0])


def mass_and_com(m, q, data=None):
    """[total mass, centre of mass (3)] (4,) at q, the deformed bodies' centres of mass
    included: sum_k m_k p_k + R_k (m c)_k(eta), the first moments (m c)_k read off each
    body's M_k(eta) (kernels/flex_energy.py)."""
    c = m.compiled
    q = check_vector(q, c.nq, "q", c)
    return _entry(c, "mass_and_com", data, (q,), ("q",), np.empty(4))


def gravity_potential(mc, g):
    """-m g . c [J] for the rows [m, c (3)] of mc (B, 4) and gravity g (3,): the one formula
    of the gravitational potential energy, for single and stacked, rigid and flexible states
    (the facade's ``energy.potential_energy`` too)."""
    return -mc[:, 0] * (mc[:, 1] * g[0] + mc[:, 2] * g[1] + mc[:, 3] * g[2])


def total_energy(m, q, u, data=None):
    """Kinetic + gravity + strain energy [J] (conserved without damping and forces); the
    facade's ``potential_energy`` holds the last two, the same numbers as here."""
    c = m.compiled
    q = check_vector(q, c.nq, "q", c)
    mc = check_result(c, mass_and_com(m, q, data), ("q",), (q,))
    V = float(gravity_potential(mc[None], m.gravity)[0]) + strain_energy(m, q)
    return kinetic_energy(m, q, u, data) + V


def strain_energy(m, q):
    """1/2 sum over modal bodies of eta^T K eta [J] (K: the body's stiffness matrix)."""
    c = m.compiled
    q = check_vector(q, c.nq, "q", c)
    V = 0.0
    for name, (qs, _) in c.modal_slices.items():
        K, _ = c.flex.elastic_blocks(c.body_link[name])
        V += 0.5 * float(q[qs] @ (K @ q[qs]))
    return V


def link_poses(m, q, data=None):
    """World poses (n_links, 4, 4) of the link frames, with every node deformation applied."""
    c = m.compiled
    f = c.flex
    d, w, (q,) = _state(c, data, q)
    flex_kinematics(c.mi, c.mf, d.ws, f.fi, f.fnode, q, w.zero, w.phi, w.V, w.abias, w.pose,
                    w.VN)
    T = np.zeros((c.n_links, 4, 4))
    T[:, :3, :3] = w.pose[:, FL.POSE_R:FL.POSE_R + 9].reshape(-1, 3, 3)
    T[:, :3, 3] = w.pose[:, FL.POSE_P:FL.POSE_P + 3]
    T[:, 3, 3] = 1.0
    return T


def frame_pose(m, q, name, data=None):
    """World pose (4, 4) of a body or node frame; a node on a modal body deformed by its
    mode shapes: (exp(Pi_r eta) R0, p0 + Pi_t eta) in its link frame."""
    c = m.compiled
    f = c.flex
    link, T_link_frame = c.frames[name]
    if link < 0:
        return T_link_frame.copy()
    Tl = link_poses(m, q, data)[link]
    a = f.frame_node[c.frame_rows[name]]
    if a < 0:
        return Tl @ T_link_frame
    nm = f.fi[link, FL.NM]
    E, _, dt = node_deformation(f.fnode, a, nm, check_vector(q, c.nq, "q", c), f.fi[link, FL.QM])
    Tn = np.eye(4)
    Tn[:3, :3] = np.array(E).reshape(3, 3) @ T_link_frame[:3, :3]
    Tn[:3, 3] = T_link_frame[:3, 3] + np.array(dt)
    return Tl @ Tn
