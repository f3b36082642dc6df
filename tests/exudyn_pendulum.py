"""A flexible pendulum in Exudyn (``ObjectFFRFreducedOrder``), built from plain arrays.

Test helper for ``tests/test_vs_exudyn.py`` (Exudyn is a test extra: ``pip install exudyn``).
The body is a set of point nodes: positions ``x_i`` in the body frame B, a nodal mass
(lumped ``masses`` (k,) or a ``mass_matrix`` (3k, 3k)), translational mode shapes
``Phi_i`` (k, 3, n) and a diagonal modal stiffness (n,). Exudyn's own
``ObjectFFRFreducedOrderInterface`` computes its inertia integrals from these arrays (we
pass it a ``FEMinterface`` holding the nodes, the nodal mass and stiffness matrices and the
mode basis), so nothing of our library enters the Exudyn model.

What Exudyn computes (checked in its source, ``CObjectFFRFreducedOrder.cpp`` and
``FEM.py``, and numerically): the nodal-based floating frame of reference with modal
reduction of Zwoelfer and Gerstmayr (Acta Mechanica, 2021). Node positions
``p_i = R + A (x_i + Psi_i zeta)`` with the frame's position R and rotation A from one
rigid-body node; the mass matrix of the kinetic energy ``1/2 p'^T M_n p'`` with the full
nodal mass matrix ``M_n`` (lumped or consistent), from seven constant integrals
``X^T M_n Y`` (X, Y among Psi, Psi~, Phi_t, x_ref~): ``M_tt = m I``, ``M_tr`` and ``M_rf``
linear in zeta, ``M_rr`` quadratic in zeta, ``M_tf`` and ``M_ff = Psi^T M_n Psi`` constant;
the full quadratic velocity vector (centrifugal and Coriolis terms of all blocks); the
modal stiffness ``-K_red zeta`` and damping. This is our floating-frame model term for
term. Where it differs:

* Gravity through ``LoadMassProportional`` (what ``AddObjectFFRFreducedOrder(gravity=...)``
  adds; access ``DisplacementMassIntegral_q``): its rotational row is
  ``-G^T m chi_u~ A^T g`` with the *undeformed* centre of mass ``chi_u``; the moment of
  ``(Phi_t^T M_n Psi zeta) x (A^T g)``, first order in the deformation, is left out (the
  translational and modal rows are exact). ``apply_gravity="nodal"`` here applies gravity
  as the constant force ``(M_n (1 (x) g))_i`` on each mesh node instead
  (``MarkerSuperElementPosition`` + ``LoadForceVector``), which is exact.
* The terms with ``G_t theta'`` of the quadratic velocity vector are computed in the C++
  object and never added: exact for Euler parameters (where they vanish; the difference
  from the Lagrangian is along the Euler-parameter constraint's gradient) and for a
  Tait-Bryan node turning about z alone (the pendulum here), wrong for Tait-Bryan angles
  in general 3D rotation.
* Exudyn's explicit solvers eliminate a ``CoordinateConstraint`` by zeroing the
  coordinate after solving with the full mass matrix, which ignores the reaction when the
  mass matrix couples the fixed coordinates to the free ones (a pinned FFRF body):
  ``simulate_scipy`` therefore integrates the pinned equations itself from Exudyn's own
  mass matrix and right-hand side, and ``simulate_exudyn`` uses Exudyn's implicit solver
  with a joint.

The pendulum: node 0 at B's origin is the pivot; B's origin is held at the world origin and
B turns about world z only; ``theta`` is that angle (0: the body along world +x).
"""
import numpy as np


def beam_nodes(length, EI, rhoA, n_nodes, n_bending, EA=None, n_axial=0, mass="lumped"):
    """A cantilevered beam along +x in B as ``n_nodes`` point nodes. Returns a dict:
    ``positions`` (k, 3), ``masses`` (k,) (lumped; None for a consistent mass),
    ``mass_matrix`` (3k, 3k) (the nodal mass matrix either way), ``mode_shapes`` (k, 3, n)
    (mass-normalised: ``Phi^T M_n Phi = I``), ``stiffness`` (n,) (the squared circular
    frequencies) and ``K`` (3k, 3k), the nodal stiffness the modes come from.

    The nodal mass: ``mass="lumped"``, rhoA times the node's share of the length; or
    ``"consistent"``, that of two-node elements with linear interpolation of the
    translations (``rhoA le / 6 [[2, 1], [1, 2]]`` per direction; it couples neighbouring
    nodes). Bending in the x-y plane: Euler-Bernoulli cubic elements on (w, w') per node
    (the stiffness of ``multibody.flex.beam_element``; the modes are inputs, the same on
    both sides), the rotations statically condensed onto the deflections (the nodes carry
    no rotary inertia), node 0 clamped. With ``n_axial`` > 0, axial modes along x from
    two-node bars of stiffness ``EA``. The modes are those of the clamped (fixed-interface)
    problem, bending ones first."""
    from scipy.linalg import eigh
    from multibody.flex.beam_element import BeamElement, assemble
    k = n_nodes
    le = length / (k - 1)
    positions = np.zeros((k, 3))
    positions[:, 0] = np.linspace(0.0, length, k)
    chain = np.zeros((k, k))          # per direction: the nodal mass of one coordinate
    for e in range(k - 1):
        if mass == "lumped":
            chain[e:e + 2, e:e + 2] += rhoA * le / 2.0 * np.eye(2)
        elif mass == "consistent":
            chain[e:e + 2, e:e + 2] += rhoA * le / 6.0 * np.array([[2.0, 1.0], [1.0, 2.0]])
        else:
            raise ValueError(f"mass: expected 'lumped' or 'consistent', got {mass!r}")
    mass_matrix = np.kron(chain, np.eye(3))
    free = np.arange(1, k)                                   # node 0 clamped
    Kb, _, _ = assemble(BeamElement(le, 0.0), k - 1, EI, rhoA, 0.0)
    w, t = 2 * free, 2 * free + 1
    Kw = Kb[np.ix_(w, w)] - Kb[np.ix_(w, t)] @ np.linalg.solve(Kb[np.ix_(t, t)], Kb[np.ix_(t, w)])
    K = np.zeros((3 * k, 3 * k))
    K[np.ix_(3 * free + 1, 3 * free + 1)] = Kw
    problems = [(1, Kw, n_bending)]
    if n_axial:
        Ka = np.zeros((k, k))
        for e in range(k - 1):
            Ka[e:e + 2, e:e + 2] += EA / le * np.array([[1.0, -1.0], [-1.0, 1.0]])
        K[np.ix_(3 * free, 3 * free)] = Ka[1:, 1:]
        problems.append((0, Ka[1:, 1:], n_axial))
    shapes, stiffness = [], []
    for direction, Kd, count in problems:
        lam, vec = eigh(Kd, chain[1:, 1:])
        for j in range(count):
            phi = np.zeros((k, 3))
            phi[1:, direction] = vec[:, j]
            shapes.append(phi)
            stiffness.append(lam[j])
    return dict(positions=positions, masses=np.diag(chain).copy() if mass == "lumped" else None,
                mass_matrix=mass_matrix, mode_shapes=np.stack(shapes, axis=2),
                stiffness=np.array(stiffness), K=K)


def _fem_interface(positions, mode_shapes, mass_matrix, K):
    """An Exudyn FEMinterface holding the nodes, nodal matrices and mode basis."""
    import scipy.sparse as sp
    from exudyn.FEM import FEMinterface
    k, _, n = mode_shapes.shape
    fem = FEMinterface()
    fem.nodes = {"Position": np.asarray(positions, dtype=float)}
    fem.massMatrix = sp.csr_matrix(mass_matrix)
    fem.stiffnessMatrix = sp.csr_matrix(K)
    fem.modeBasis = {"matrix": mode_shapes.reshape(3 * k, n), "type": "NormalModes"}
    fem.surface = [{"Name": "none", "Trigs": np.zeros((0, 3), dtype=int)}]
    return fem


def build(positions, mode_shapes, stiffness, theta0=0.0, eta0=None, masses=None, mass_matrix=None,
          K=None, gravity=(0.0, -9.81, 0.0), apply_gravity="nodal", joint=True,
          node_type="NodeType.RotationRxyz"):
    """The Exudyn system at rest with B turned by ``theta0`` about world z and modal
    coordinates ``eta0`` (default 0): returns ``(SC, mbs, handles)``; ``handles`` has the
    frame's rigid-body node ``node``, the modal node ``modal``, the body ``body`` and
    ``free``, the ODE2 indices of the frame's rz (Tait-Bryan node only) and the modes.

    ``apply_gravity``: "nodal" (exact; see the module docstring) or "body" (Exudyn's
    LoadMassProportional: the undeformed centre of mass in the moment). ``joint``: the pin
    as an Exudyn ``GenericJoint`` (for Exudyn's own solver) or none (the pin as fixed
    coordinates, see ``simulate_scipy``). The nodal mass is ``mass_matrix`` (3k, 3k) if
    given, else ``diag(masses) (x) I3``. ``K`` (3k, 3k) only goes into the FEM interface;
    Exudyn's modal stiffness is ``diag(stiffness)`` as given."""
    import exudyn as exu
    from exudyn import itemInterface as ii
    from exudyn.FEM import ObjectFFRFreducedOrderInterface
    positions = np.asarray(positions, dtype=float)
    mode_shapes = np.asarray(mode_shapes, dtype=float)
    k, _, n = mode_shapes.shape
    if mass_matrix is None:
        mass_matrix = np.kron(np.diag(np.asarray(masses, dtype=float)), np.eye(3))
    mass_matrix = np.asarray(mass_matrix, dtype=float)
    K = np.zeros((3 * k, 3 * k)) if K is None else K
    g = np.asarray(gravity, dtype=float)
    if apply_gravity not in ("nodal", "body"):
        raise ValueError(f"apply_gravity: expected 'nodal' or 'body', got {apply_gravity!r}")

    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    cms = ObjectFFRFreducedOrderInterface(_fem_interface(positions, mode_shapes, mass_matrix, K),
                                          rigidBodyNodeType=node_type)
    cms.stiffnessMatrixReduced = np.diag(np.asarray(stiffness, dtype=float))
    c, s = np.cos(theta0), np.sin(theta0)
    body = cms.AddObjectFFRFreducedOrder(mbs, rotationMatrixRef=[[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
                                         gravity=g if apply_gravity == "body" else [0.0, 0.0, 0.0])
    node, obj, modal = body["nRigidBody"], body["oFFRFreducedOrder"], body["nGenericODE2"]
    if eta0 is not None:
        mbs.SetNodeParameter(modal, "initialCoordinates", [float(e) for e in eta0])
    if apply_gravity == "nodal":
        f = (mass_matrix @ np.tile(g, k)).reshape(k, 3)
        for i in np.flatnonzero(np.any(f != 0.0, axis=1)):
            mk = mbs.AddMarker(ii.MarkerSuperElementPosition(bodyNumber=obj, meshNodeNumbers=[int(i)],
                                                             weightingFactors=[1.0]))
            mbs.AddLoad(ii.LoadForceVector(markerNumber=mk, loadVector=list(f[i])))
    if joint:   # the frame's node held at the world origin, free to turn about world z only
        ground = mbs.AddObject(ii.ObjectGround())
        mg = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
        mn = mbs.AddMarker(ii.MarkerNodeRigid(nodeNumber=node))
        mbs.AddObject(ii.GenericJoint(markerNumbers=[mg, mn], constrainedAxes=[1, 1, 1, 1, 1, 0]))
    mbs.Assemble()
    rigid = list(mbs.systemData.GetNodeLTGODE2(node))
    free = np.array(rigid[5:6] + list(mbs.systemData.GetNodeLTGODE2(modal)), dtype=int)
    return SC, mbs, dict(node=node, modal=modal, body=obj, free=free, k=k, n=n)


def _settings(sensor_period=None):
    """Simulation settings that write no files and print nothing (Exudyn >= 1.13 names
    first, the older ones otherwise)."""
    import exudyn as exu
    st = exu.SimulationSettings()
    st.timeIntegration.verboseMode = 0
    if hasattr(st, "solution"):
        st.solution.file.write = False
        st.show.computationTime = False
        st.show.statistics = False
        if sensor_period is not None:
            st.solution.sensors.writePeriod = sensor_period
    else:
        st.solutionSettings.writeSolutionToFile = False
        st.displayComputationTime = False
        st.displayStatistics = False
        if sensor_period is not None:
            st.solutionSettings.sensorsWritePeriod = sensor_period
    return st


def _tip_and_angle(mbs, h, tip):
    """The tip mesh node's world position (Exudyn's output) and the frame's angle about z."""
    import exudyn as exu
    p = mbs.GetObjectOutputSuperElement(h["body"], exu.OutputVariableType.Position, tip)
    A = np.asarray(mbs.GetNodeOutput(h["node"], exu.OutputVariableType.RotationMatrix)).reshape(3, 3)
    return np.asarray(p), np.arctan2(A[1, 0], A[0, 0])


def simulate_scipy(positions, mode_shapes, stiffness, theta0, t_end=1.0, n_out=1001, eta0=None,
                   rtol=1e-12, atol=1e-13, tip=-1, **model):
    """The pinned pendulum from rest at ``theta0``, integrated by SciPy's DOP853 over
    Exudyn's own mass matrix and right-hand side (``MainSolverImplicitSecondOrder``'s
    ``ComputeMassMatrix`` and ``ComputeODE2RHS``: everything of the formulation is
    Exudyn's, only the integrator is SciPy's). The frame node has Tait-Bryan angles whose
    x, y, z, rx, ry stay 0 (the pin), so the equations are the rows and columns of
    ``M qdd = f`` of rz and the modal coordinates (the pin's reaction acts on the others).

    Returns ``t`` (n_out,), the tip node's world position (n_out, 3), the frame angle
    ``theta`` (n_out,) and the modal coordinates ``zeta`` (n_out, n)."""
    import exudyn as exu
    from scipy.integrate import solve_ivp
    model["node_type"] = "NodeType.RotationRxyz"
    _, mbs, h = build(positions, mode_shapes, stiffness, theta0=theta0, eta0=eta0, joint=False, **model)
    free, sd = h["free"], mbs.systemData
    solver = exu.MainSolverImplicitSecondOrder()
    settings = _settings()
    settings.timeIntegration.generalizedAlpha.computeInitialAccelerations = False   # M is singular
    solver.InitializeSolver(mbs, settings)
    nq, nf = solver.GetODE2size(), len(free)

    def set_state(y):
        q, v = np.zeros(nq), np.zeros(nq)
        q[free], v[free] = y[:nf], y[nf:]
        sd.SetODE2Coordinates(q)
        sd.SetODE2Coordinates_t(v)

    def rhs(t, y):
        set_state(y)
        solver.ComputeODE2RHS(mbs)
        f = np.asarray(solver.GetSystemResidual())[:nq]
        solver.ComputeMassMatrix(mbs)
        M = np.asarray(solver.GetSystemMassMatrix())
        return np.r_[y[nf:], np.linalg.solve(M[np.ix_(free, free)], f[free])]

    y0 = np.zeros(2 * nf)
    y0[:nf] = sd.GetODE2Coordinates()[free]          # eta0 (coordinates are relative to the reference)
    t_eval = np.linspace(0.0, t_end, n_out)
    sol = solve_ivp(rhs, (0.0, t_end), y0, method="DOP853", t_eval=t_eval, rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    xyz, theta = np.empty((n_out, 3)), np.empty(n_out)
    for j in range(n_out):
        set_state(sol.y[:, j])
        xyz[j], theta[j] = _tip_and_angle(mbs, h, tip % h["k"])
    solver.FinalizeSolver(mbs, settings)
    return sol.t, xyz, np.unwrap(theta), sol.y[1:nf].T


def simulate_exudyn(positions, mode_shapes, stiffness, theta0, t_end=1.0, step=5e-5, eta0=None,
                    tip=-1, **model):
    """The same pendulum with Exudyn's own solver: the pin as a ``GenericJoint`` (index-3
    constraints), Euler parameters for the frame unless ``node_type`` says otherwise, the
    trapezoidal rule (generalized-alpha with spectral radius 1) with a fixed ``step`` and a
    full Newton iteration. A second-order method: it checks ``simulate_scipy`` to the level
    of its step size. Same returns as ``simulate_scipy``, at every step."""
    import exudyn as exu
    from exudyn import itemInterface as ii
    model.setdefault("node_type", "NodeType.RotationEulerParameters")
    _, mbs, h = build(positions, mode_shapes, stiffness, theta0=theta0, eta0=eta0, joint=True, **model)
    s_tip = mbs.AddSensor(ii.SensorSuperElement(bodyNumber=h["body"], meshNodeNumber=tip % h["k"],
                                                storeInternal=True,
                                                outputVariableType=exu.OutputVariableType.Position))
    s_rot = mbs.AddSensor(ii.SensorNode(nodeNumber=h["node"], storeInternal=True,
                                        outputVariableType=exu.OutputVariableType.RotationMatrix))
    s_mod = mbs.AddSensor(ii.SensorNode(nodeNumber=h["modal"], storeInternal=True,
                                        outputVariableType=exu.OutputVariableType.Coordinates))
    mbs.Assemble()
    st = _settings(sensor_period=step)
    ti = st.timeIntegration
    ti.endTime = t_end
    ti.numberOfSteps = int(round(t_end / step))
    ti.reuseConstantMassMatrix = False
    ti.newton.relativeTolerance = 1e-12
    ti.newton.absoluteTolerance = 1e-14
    ti.newton.useModifiedNewton = False
    ti.generalizedAlpha.spectralRadius = 1.0
    exu.SolveDynamic(mbs, st, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    tip_xyz = mbs.GetSensorStoredData(s_tip)
    rot = mbs.GetSensorStoredData(s_rot)
    zeta = mbs.GetSensorStoredData(s_mod)[:, 1:]
    return tip_xyz[:, 0], tip_xyz[:, 1:4], np.unwrap(np.arctan2(rot[:, 4], rot[:, 1])), zeta
