"""A flexible body from a solid finite-element mesh: sparse mass matrix, modes, a reduced model.

A 1 m aluminium bar of square section (4 cm) is meshed with linear tetrahedra (a brick of
hexahedra, six tetrahedra each), its consistent mass and stiffness matrices assembled as
``scipy.sparse`` matrices, and its first cantilever modes (clamped at x = 0) computed with
``scipy.sparse.linalg.eigsh``. The reduced model is exported as an FE tool would export it
(Matrix Market files: the sparse nodal mass matrix, the node positions, the modes in the
FE layout (3k, n) and the full reduced stiffness K_red = Phi^T K Phi) and read back with
``multibody.flex.load_reduced_model``, which computes the modal integrals from the sparse
mass matrix without ever making it dense. The bar then hangs from a pin at its root,
released horizontal under gravity: the run prints the modal frequencies (against the
Euler-Bernoulli cantilever's, which the coarse, stiff linear tetrahedra exceed), the
energy drift and the tip deflection.

    python examples/fe_solid_body.py                        # 0.3 s, a 20 x 3 x 3 brick
    python examples/fe_solid_body.py --divisions 40 4 4 --t-final 1.0
"""
import argparse
import os
import tempfile
import time

import numpy as np

import multibody as mb
from multibody.flex import load_reduced_model

ALUMINIUM = dict(E=70e9, poisson=0.33, rho=2700.0)
#: the six tetrahedra of a unit cube around its diagonal from corner 0 to corner 7 (corner
#: index i + 2 j + 4 l at offset (i, j, l)); neighbouring cubes' faces match
_KUHN = np.array([[0, 1, 3, 7], [0, 1, 5, 7], [0, 2, 3, 7], [0, 2, 6, 7], [0, 4, 5, 7], [0, 4, 6, 7]])


def brick_mesh(size, divisions):
    """(nodes (k, 3), tetrahedra (e, 4)) of a brick [0, size] meshed by ``divisions``
    (nx, ny, nz) hexahedra of six tetrahedra each; nodes numbered x fastest."""
    n = np.asarray(divisions) + 1
    axes = [np.linspace(0.0, s, d) for s, d in zip(size, n)]
    z, y, x = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")
    nodes = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    i, j, l = (a.ravel() for a in np.meshgrid(*(np.arange(d - 1) for d in n), indexing="ij"))
    corners = np.array([(i + di) + n[0] * ((j + dj) + n[1] * (l + dl))
                        for dl in (0, 1) for dj in (0, 1) for di in (0, 1)]).T  # (cubes, 8)
    return nodes, corners[:, _KUHN].reshape(-1, 4)


def tet_matrices(nodes, tets, E, poisson, rho):
    """(K, M): the linear-elastic stiffness and consistent mass matrices (3k, 3k) of linear
    tetrahedra, ``scipy.sparse`` CSR, dofs x, y, z of node 0, then node 1, ..."""
    import scipy.sparse as sp
    A = np.ones((len(tets), 4, 4))
    A[:, :, 1:] = nodes[tets]
    V = np.abs(np.linalg.det(A)) / 6.0
    G = np.linalg.inv(A)[:, 1:, :]  # dN_a/dx_j: (e, 3, 4)
    B = np.zeros((len(tets), 6, 12))
    for a in range(4):
        gx, gy, gz = G[:, 0, a], G[:, 1, a], G[:, 2, a]
        c = 3 * a
        B[:, 0, c], B[:, 1, c + 1], B[:, 2, c + 2] = gx, gy, gz
        B[:, 3, c], B[:, 3, c + 1] = gy, gx  # gamma_xy
        B[:, 4, c + 1], B[:, 4, c + 2] = gz, gy  # gamma_yz
        B[:, 5, c], B[:, 5, c + 2] = gz, gx  # gamma_zx
    lam, mu = E * poisson / ((1 + poisson) * (1 - 2 * poisson)), E / (2 * (1 + poisson))
    D = np.diag([lam + 2 * mu] * 3 + [mu] * 3)
    D[:3, :3] += lam * (1.0 - np.eye(3))
    Ke = V[:, None, None] * np.einsum("eri,rs,esj->eij", B, D, B)
    Me = (rho * V / 20.0)[:, None, None] * np.kron(np.eye(4) + 1.0, np.eye(3))[None]
    dofs = (3 * tets[:, :, None] + np.arange(3)).reshape(len(tets), 12)
    rows, cols = np.repeat(dofs, 12, axis=1).ravel(), np.tile(dofs, 12).ravel()
    n = 3 * len(nodes)
    return tuple(sp.coo_array((X.ravel(), (rows, cols)), shape=(n, n)).tocsr() for X in (Ke, Me))


def clamped_modes(K, M, clamped, n_modes):
    """(omega^2 (n,), Phi (3k, n)) of the n lowest modes with the nodes ``clamped`` (a bool
    (k,) mask) fixed, unit modal mass, by shift-invert Lanczos about 0 (``eigsh``)."""
    from scipy.sparse.linalg import eigsh
    free = ~np.repeat(clamped, 3)
    lam, phi = eigsh(K[free][:, free], n_modes, M[free][:, free], sigma=0.0, which="LM")
    order = np.argsort(lam)
    Phi = np.zeros((K.shape[0], n_modes))
    Phi[free] = phi[:, order]
    Phi /= np.sqrt(np.einsum("in,in->n", Phi, M @ Phi))
    return lam[order], Phi


def export_reduced_model(folder, nodes, K, M, Phi):
    """Write the reduced model as an FE tool exports it (Matrix Market files) into ``folder``;
    return {field: path} for ``load_reduced_model``."""
    from scipy.io import mmwrite
    files = {name: os.path.join(folder, f"{name}.mtx") for name in ("positions", "mode_shapes", "stiffness",
                                                                    "mass_matrix")}
    K_red = Phi.T @ (K @ Phi)  # full and symmetric (off-diagonal: the modes' rounding, degenerate pairs)
    for name, a in (("positions", nodes), ("mode_shapes", Phi), ("stiffness", 0.5 * (K_red + K_red.T)),
                    ("mass_matrix", M)):
        mmwrite(files[name], a, symmetry="symmetric" if name in ("stiffness", "mass_matrix") else "general")
    return files


def solid_bar(length=1.0, width=0.04, divisions=(20, 3, 3), n_modes=4, folder=None):
    """(model, modal data, tip node index): the bar on a pin ``pivot`` about y at its root
    (x along the bar, gravity along -z), its modes from the exported reduced model."""
    nodes, tets = brick_mesh((length, width, width), divisions)
    nodes[:, 1:] -= 0.5 * width  # the bar's axis on the x axis
    K, M = tet_matrices(nodes, tets, **ALUMINIUM)
    _, Phi = clamped_modes(K, M, nodes[:, 0] == 0.0, n_modes)
    with tempfile.TemporaryDirectory() as tmp:
        data = load_reduced_model(export_reduced_model(folder or tmp, nodes, K, M, Phi))
    tip = int(np.argmin(np.linalg.norm(nodes - [length, 0.0, 0.0], axis=1)))
    m = mb.Multibody(gravity=(0.0, 0.0, -9.81))
    bar = m.add_modal_body("bar", modal_data=data, nodes={"tip": tip})
    m.add_hinge(None, bar, "pin", axis=(0.0, 1.0, 0.0), name="pivot")
    return m, data, tip


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--divisions", type=int, nargs=3, default=(20, 3, 3), help="hexahedra along x, y, z")
    ap.add_argument("--modes", type=int, default=4, help="number of modes")
    ap.add_argument("--t-final", type=float, default=0.3, help="simulated time [s]")
    args = ap.parse_args(argv)

    wall = time.perf_counter()
    m, data, tip = solid_bar(divisions=args.divisions, n_modes=args.modes)
    built = time.perf_counter() - wall
    w = 0.04
    EI, rhoA = ALUMINIUM["E"] * w**4 / 12.0, ALUMINIUM["rho"] * w * w
    beam = 1.8751**2 * np.sqrt(EI / rhoA) / (2 * np.pi)
    print(f"mesh: {data.n_nodes} nodes, {data.n_modes} modes, mass {float(data.mass):.3f} kg; "
          f"built in {built:.2f} s")
    print(f"modes: {', '.join(f'{f / (2 * np.pi):.1f}' for f in data.frequencies)} Hz "
          f"(Euler-Bernoulli cantilever: {beam:.1f} Hz, twice: the two bending planes)")
    wall = time.perf_counter()
    res = mb.simulate(m, np.zeros(m.nq), np.zeros(m.nu), args.t_final, dt=1e-3, integrator="dopri5",
                      rtol=1e-9, atol=1e-12)
    wall = time.perf_counter() - wall
    ke, pe = res.energy(m)
    E = ke + pe
    deflection = res.q[:, m.modal_slice("bar")] @ data.mode_shapes[tip][5]
    print(f"{len(res)} samples, {res.n_steps} steps in {wall:.2f} s (first run includes compiling)")
    print(f"swing to {np.degrees(res.q[-1, 0]):.1f} deg; tip deflection {1e3 * deflection.min():.3f} .. "
          f"{1e3 * deflection.max():.3f} mm; energy drift {np.abs(E - E[0]).max():.2e} J")
    return res, data


if __name__ == "__main__":
    main()
