"""Butcher tableaus of explicit Runge-Kutta methods, with optional embedded error estimators.

A tableau (A, b, c) defines the s-stage explicit method

    k_i = f(t + c_i h, y + h sum_{j<i} A_ij k_j),    y1 = y + h sum_i b_i k_i.

An embedded pair also carries ``b_hat`` (weights of a lower-order solution); the
difference ``h sum_i (b_i - b_hat_i) k_i`` estimates the local error used by the
adaptive stepper.
"""
import numpy as np

__all__ = ["ButcherTableau", "TABLEAUS", "get_tableau", "runge_kutta_4"]


class ButcherTableau:
    """An explicit Runge-Kutta method.

    Parameters
    ----------
    A : (s, s) array_like
        Stage coefficients, strictly lower triangular (explicit methods only).
    b : (s,) array_like
        Weights of the propagated solution.
    c : (s,) array_like, optional
        Stage times as fractions of the step; default: the row sums of A.
    order : int
        Order of the propagated solution.
    b_hat : (s,) array_like, optional
        Weights of the embedded solution, for the error estimate of adaptive steps.
    embedded_order : int, optional
        Order of the embedded solution.
    name : str
        A short name.
    """

    def __init__(self, A, b, c=None, order=1, b_hat=None, embedded_order=None, name="custom"):
        A = np.array(A, dtype=float)
        b = np.array(b, dtype=float)
        s = b.shape[0]
        if b.ndim != 1 or s < 1:
            raise ValueError(f"b must be a non-empty 1-D array, got shape {b.shape}")
        if A.shape != (s, s):
            raise ValueError(f"A must have shape ({s}, {s}) to match b, got {A.shape}")
        if np.any(np.triu(A) != 0.0):
            raise ValueError("A must be strictly lower triangular (explicit methods only)")
        c = A.sum(axis=1) if c is None else np.array(c, dtype=float)
        if c.shape != (s,):
            raise ValueError(f"c must have shape ({s},), got {c.shape}")
        for nm, x in (("A", A), ("b", b), ("c", c)):
            if not np.all(np.isfinite(x)):
                raise ValueError(f"{nm} must be finite")
        if abs(b.sum() - 1.0) > 1e-12:
            raise ValueError(f"the weights b must sum to 1 (consistency), they sum to {b.sum()!r}")
        if b_hat is not None:
            b_hat = np.array(b_hat, dtype=float)
            if b_hat.shape != (s,):
                raise ValueError(f"b_hat must have shape ({s},), got {b_hat.shape}")
            if embedded_order is None:
                raise ValueError("give embedded_order with b_hat")
        self.A, self.b, self.c, self.b_hat = A, b, c, b_hat
        self.order = int(order)
        self.embedded_order = None if b_hat is None else int(embedded_order)
        self.name = name

    @property
    def num_stages(self):
        """Number of stages s."""
        return self.b.shape[0]

    @property
    def is_embedded(self):
        """True when the tableau carries an error estimator (adaptive stepping possible)."""
        return self.b_hat is not None

    def packed(self):
        """(s + 3, s) array for the kernels: rows A, b, b - b_hat (zeros if none), c."""
        s = self.num_stages
        P = np.zeros((s + 3, s))
        P[:s] = self.A
        P[s] = self.b
        if self.b_hat is not None:
            P[s + 1] = self.b - self.b_hat
        P[s + 2] = self.c
        return P

    def __repr__(self):
        emb = f", embedded_order={self.embedded_order}" if self.is_embedded else ""
        return f"ButcherTableau({self.name!r}, stages={self.num_stages}, order={self.order}{emb})"


def euler():
    """Forward Euler, order 1."""
    return ButcherTableau([[0.0]], [1.0], order=1, name="euler")


def midpoint():
    """Explicit midpoint rule, order 2."""
    return ButcherTableau([[0, 0], [0.5, 0]], [0, 1], order=2, name="midpoint")


def heun():
    """Heun's method (explicit trapezoid), order 2."""
    return ButcherTableau([[0, 0], [1, 0]], [0.5, 0.5], order=2, name="heun")


def runge_kutta_4():
    """The classic fourth-order Runge-Kutta method."""
    A = [[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0]]
    return ButcherTableau(A, [1 / 6, 1 / 3, 1 / 3, 1 / 6], order=4, name="rk4")


def rule_3_8():
    """Kutta's 3/8 rule, order 4."""
    A = [[0, 0, 0, 0], [1 / 3, 0, 0, 0], [-1 / 3, 1, 0, 0], [1, -1, 1, 0]]
    return ButcherTableau(A, [1 / 8, 3 / 8, 3 / 8, 1 / 8], order=4, name="rk38")


def bogacki_shampine():
    """Bogacki-Shampine 3(2) embedded pair (FSAL)."""
    A = [[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.75, 0, 0], [2 / 9, 1 / 3, 4 / 9, 0]]
    return ButcherTableau(A, [2 / 9, 1 / 3, 4 / 9, 0], order=3,
                          b_hat=[7 / 24, 1 / 4, 1 / 3, 1 / 8], embedded_order=2, name="bs32")


def dormand_prince():
    """Dormand-Prince 5(4) embedded pair (FSAL), the method of MATLAB's ode45."""
    A = np.zeros((7, 7))
    A[1, :1] = [1 / 5]
    A[2, :2] = [3 / 40, 9 / 40]
    A[3, :3] = [44 / 45, -56 / 15, 32 / 9]
    A[4, :4] = [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]
    A[5, :5] = [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]
    A[6, :6] = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]
    b = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
    b_hat = [5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40]
    return ButcherTableau(A, b, order=5, b_hat=b_hat, embedded_order=4, name="dopri5")


#: name -> factory of the built-in tableaus (aliases included).
TABLEAUS = {
    "euler": euler,
    "midpoint": midpoint,
    "heun": heun,
    "rk4": runge_kutta_4,
    "rk38": rule_3_8,
    "3/8": rule_3_8,
    "bs32": bogacki_shampine,
    "bogacki_shampine": bogacki_shampine,
    "dopri5": dormand_prince,
    "dormand_prince": dormand_prince,
}


def get_tableau(name):
    """The ButcherTableau called ``name`` (see ``TABLEAUS``), or the tableau itself."""
    if isinstance(name, ButcherTableau):
        return name
    key = str(name).lower()
    try:
        return _BUILT[key]
    except KeyError:
        pass
    try:
        tab = TABLEAUS[key]()
    except KeyError:
        import difflib
        close = difflib.get_close_matches(str(name).lower(), list(TABLEAUS) + ["munthe_kaas"], n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"unknown integrator {name!r}: expected one of "
                         f"{sorted(set(TABLEAUS) | {'munthe_kaas'})} or a ButcherTableau{hint}") from None
    for x in (tab.A, tab.b, tab.c, tab.b_hat):  # shared by every run that names it: read-only
        if x is not None:
            x.flags.writeable = False
    _BUILT[key] = tab
    return tab


#: name -> the built-in tableau made once (``get_tableau``; each took 0.2 ms to check and build,
#: twice per ``simulate`` call)
_BUILT = {}
