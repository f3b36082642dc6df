"""Bodies and nodes: the things a multibody is built from."""
import warnings

import numpy as np


def check_transform(T, what):
    """Return T as a float (4, 4) rigid transform, or raise ValueError naming ``what``."""
    if T is None:
        return np.eye(4)
    T = np.array(T, dtype=float)
    if T.shape != (4, 4):
        raise ValueError(f"{what}: expected a 4x4 homogeneous transform, got shape {T.shape}")
    if not np.all(np.isfinite(T)):
        raise ValueError(f"{what}: transform holds non-finite values")
    R = T[:3, :3]
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-6) or np.linalg.det(R) < 0:
        raise ValueError(f"{what}: the rotation block is not a proper rotation matrix")
    if not np.allclose(T[3], [0.0, 0.0, 0.0, 1.0]):
        raise ValueError(f"{what}: the last row must be [0, 0, 0, 1]")
    T[3] = [0.0, 0.0, 0.0, 1.0]
    return T


class RigidBody:
    """A rigid body: mass [kg], centre of mass ``com`` [m] and rotational inertia about
    the centre of mass ``inertia`` [kg m^2] (3x3), both expressed in the body frame.

    Create bodies with ``Multibody.add_body``; a body joins the tree when a hinge
    connects it to a parent. ``n_modes``: its modal coordinates, none (a ``ModalBody``'s are
    its own).
    """

    n_modes = 0

    def __init__(self, name, mass=0.0, com=(0.0, 0.0, 0.0), inertia=None):
        if not isinstance(name, str) or not name:
            raise ValueError(f"body name must be a non-empty string, got {name!r}")
        self.name = name
        self.set_mass_properties(mass, com, inertia, _stacklevel=4)  # the caller of add_body
        self.parent_hinge = None
        self.child_hinges = []
        self.multibody = None
        self.rod_length = None  # length of the uniform rod a generator made of it [m], else None
        self.tip_node = None  # the Node a generator hangs the next body from (modal chains), else None

    def set_mass_properties(self, mass, com=(0.0, 0.0, 0.0), inertia=None, _stacklevel=2):
        """Set mass [kg], centre of mass (3,) [m] and inertia about it (3, 3) [kg m^2].

        Warns (UserWarning) when the principal moments violate the triangle inequality."""
        mass = float(mass)
        if not np.isfinite(mass) or mass < 0.0:
            raise ValueError(f"body {self.name!r}: mass must be finite and >= 0, got {mass!r}")
        com = np.array(com, dtype=float)
        if com.shape != (3,) or not np.all(np.isfinite(com)):
            raise ValueError(f"body {self.name!r}: com must be a finite 3-vector, got {com!r}")
        inertia = np.zeros((3, 3)) if inertia is None else np.array(inertia, dtype=float)
        if inertia.shape == (6,):  # ixx, ixy, ixz, iyy, iyz, izz
            ixx, ixy, ixz, iyy, iyz, izz = inertia
            inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        if inertia.shape != (3, 3) or not np.all(np.isfinite(inertia)):
            raise ValueError(f"body {self.name!r}: inertia must be a finite 3x3 matrix (or 6 "
                             f"values ixx, ixy, ixz, iyy, iyz, izz), got shape {inertia.shape}")
        if not np.allclose(inertia, inertia.T, atol=1e-9 * max(1.0, np.abs(inertia).max())):
            raise ValueError(f"body {self.name!r}: inertia must be symmetric")
        eig = np.linalg.eigvalsh(inertia)
        tol = 1e-9 * max(1.0, np.abs(eig).max())
        if eig.min() < -tol:
            raise ValueError(f"body {self.name!r}: inertia must be positive semi-definite "
                             f"(eigenvalues {eig})")
        if eig[0] + eig[1] < eig[2] - tol - 1e-6 * eig[2]:
            warnings.warn(f"body {self.name!r}: principal moments {eig} violate the triangle "
                          f"inequality (I1 + I2 >= I3), which no physical body does; fine for a "
                          f"planar model that only uses the moment about its axis",
                          UserWarning, stacklevel=_stacklevel)
        self.mass = mass
        self.com = com
        self.inertia = 0.5 * (inertia + inertia.T)
        mb = getattr(self, "multibody", None)
        if mb is not None:
            mb.invalidate()

    def spatial_inertia(self):
        """6x6 spatial inertia about the body-frame origin, in body-frame coordinates."""
        c = self.com
        C = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
        m = self.mass
        top = np.hstack([self.inertia - m * C @ C, m * C])
        bottom = np.hstack([-m * C, m * np.eye(3)])
        return np.vstack([top, bottom])

    def __repr__(self):
        return f"RigidBody({self.name!r}, mass={self.mass:g})"


class Node:
    """A named frame fixed on a body, at pose ``T_body_node`` (4x4) in the body frame;
    ``mode_shapes`` (6, n_modes) on a modal body (its motion per unit modal coordinate),
    else None."""

    def __init__(self, name, body, T_body_node=None):
        self.name = name
        self.body = body
        self.T_body_node = check_transform(T_body_node, f"node {name!r}")
        self.mode_shapes = None

    def __repr__(self):
        return f"Node({self.name!r} on {self.body.name!r})"
