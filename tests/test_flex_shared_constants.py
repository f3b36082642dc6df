"""Modal bodies made from one ModalData share its arrays, and the compiled flex constants
(mass blocks M0, integrals, node records) are stored once per distinct block: a chain of N
such bodies holds one copy, not N (model/shared_arrays.py). The results must not change
by a bit: compared with a model compiled with every block stored per link."""
import numpy as np
import pytest

import multibody as mb
import multibody.model.flex_compile as flex_compile
from multibody.flex import beam_modes
from multibody.kernels import flex_layout as FL
from multibody.model.shared_arrays import ConstantPool

from flex_models import flex_state

CONSTANTS = ("fmass", "fm1", "fm2", "fnode")


@pytest.fixture(scope="module")
def beam():
    return beam_modes(1.0, EI=50.0, rhoA=1.0, n_elements=8, n_modes=3)


def _chain_of(datas):
    """A chain as add_serial_chain makes it, body k made from datas[k]."""
    m = mb.Multibody()
    attach = None
    for k, d in enumerate(datas):
        b = m.add_modal_body(f"b{k}", modal_data=d, nodes={f"b{k}_tip": d.n_nodes - 1})
        m.add_hinge(attach, b, kind="pin", axis=(0.0, 1.0, 0.0), name=f"b{k}_hinge")
        attach = f"b{k}_tip"
    return m


def _state(m, seed=0):
    """flex_state's, modal coordinates scaled to 3e-4: a pinned, stiffened beam's M(eta)
    stays definite only for small eta."""
    rng = np.random.default_rng(seed)
    q, u = flex_state(m, rng)
    for b in m.modal_bodies:
        q[m.modal_slice(b)] *= 1e-3
    return q, u, rng.normal(size=m.nu)


def _results(m):
    q, u, tau = _state(m)
    return [m.forward_dynamics(q, u, tau), m.inverse_dynamics(q, u, tau), m.mass_matrix(q),
            m.inverse_mass_matrix(q)]


class _PerLinkPool(ConstantPool):
    """A pool that stores every block again (the layout before sharing)."""

    def add(self, block):
        self._address.clear()
        return super().add(block)


def test_constants_do_not_grow_with_the_chain(beam):
    long_model = _chain_of([beam] * 6)
    short, long = _chain_of([beam] * 2).compiled.flex, long_model.compiled.flex
    for name in CONSTANTS:
        assert getattr(long, name).size == getattr(short, name).size > 0, name
    nb = 6 + beam.n_modes
    shared = FL.SCR_BLOCKS * nb * nb  # the scratch all links share, behind their blocks
    assert long_model.compiled.create_data().flex_work.M.size == 6 * nb * nb + shared  # the per-state blocks M_k(eta) stay per link
    assert np.all(long.fi[:, FL.SCR] == 6 * nb * nb)
    assert len(set(long.fi[:, FL.CADR])) == len(set(short.fi[:, FL.CADR])) <= 2  # the links read shared M0 ...
    assert len(set(long.fi[:, FL.MADR])) == 6  # ... and write their own M_k(eta)


def test_equal_but_distinct_data_share_by_content_and_agree_bit_for_bit(beam, monkeypatch):
    n = 5
    same = _chain_of([beam] * n)
    equal = _chain_of([beam.replace() for _ in range(n)])  # distinct arrays, equal values
    assert not np.shares_memory(equal.modal_bodies[0].M1, equal.modal_bodies[1].M1)
    monkeypatch.setattr(flex_compile, "ConstantPool", _PerLinkPool)
    per_link = _chain_of([beam.replace() for _ in range(n)])
    per_link.compiled  # compiled with every block stored per link
    monkeypatch.undo()
    for name in CONSTANTS:
        shared_size = getattr(same.compiled.flex, name).size
        assert getattr(equal.compiled.flex, name).size == shared_size, name
        if name != "fnode":  # the last body's tip node has no child: n - 1 records
            assert getattr(per_link.compiled.flex, name).size == n * shared_size, name
    reference = _results(per_link)
    for m in (same, equal):
        for got, want in zip(_results(m), reference):
            assert np.array_equal(got, want)


def test_bodies_share_the_data_read_only(beam):
    m = _chain_of([beam] * 3)
    b0, b1, _ = m.modal_bodies
    for name in ("M1", "M2"):
        assert np.shares_memory(getattr(b0, name), getattr(beam, name))
        assert np.shares_memory(getattr(b0, name), getattr(b1, name))
        a = getattr(b0, name)
        with pytest.raises(ValueError):
            a[(0,) * a.ndim] = 1.0
        with pytest.raises(ValueError):
            getattr(b0, name).setflags(write=True)
    for name in ("modal_mass", "S", "S_rot"):
        assert np.shares_memory(getattr(b0, name), getattr(b1, name))
        assert not getattr(b0, name).flags.writeable


def test_writeable_inputs_are_copied(beam):
    """Arrays the caller may still change are copied, once per body."""
    M1, M2, S = beam.M1.copy(), beam.M2.copy(), beam.S.copy()
    m = mb.Multibody()
    b = m.add_modal_body("b", beam.n_modes, mass=1.0, inertia=np.eye(3), S=S, S_rot=beam.S_rot, M1=M1, M2=M2)
    before = b.mass_matrix(np.full(beam.n_modes, 0.1))
    M1[:] = 0.0
    M2[:] = 0.0
    S[:] = 0.0
    assert np.array_equal(b.mass_matrix(np.full(beam.n_modes, 0.1)), before)
    assert not b.M1.flags.writeable


def test_stiffness_and_damping_stay_per_body(beam):
    m = _chain_of([beam] * 3)
    b0, b1, _ = m.modal_bodies
    b0.stiffness = 2.0 * beam.stiffness
    b1.damping = np.full(beam.n_modes, 0.5)
    assert np.array_equal(b1.stiffness, beam.stiffness)
    assert np.array_equal(b0.damping, beam.damping)
    c = m.compiled
    (K0, C0), (K1, C1), (K2, C2) = (c.flex.elastic_blocks(c.body_link[b.name]) for b in m.modal_bodies)
    assert np.array_equal(K0, np.diag(2.0 * beam.stiffness))
    assert np.array_equal(K1, np.diag(beam.stiffness))
    assert np.array_equal(C1, np.diag(np.full(beam.n_modes, 0.5)))
    assert np.array_equal(C0, np.diag(beam.damping))
    # equal blocks are stored once: b1 and b2 share their stiffness, b0 and b2 their damping
    n2 = beam.n_modes**2
    assert c.flex.stiffness.size == 2 * n2 and c.flex.damping.size == 2 * n2


@pytest.mark.parametrize("copy_model", ["pickle", "deepcopy"])
def test_copies_of_a_model_keep_the_arrays_shared_and_read_only(beam, copy_model):
    """Pickle (a worker process) and deepcopy bring the arrays back writeable: made
    read-only again, still one buffer for all bodies of the copy, same results."""
    import copy
    import pickle
    m = _chain_of([beam] * 3)
    m2 = pickle.loads(pickle.dumps(m)) if copy_model == "pickle" else copy.deepcopy(m)
    b0, _, b2 = m2.modal_bodies
    for name in b0.SHARED_FIELDS:
        a = getattr(b0, name)
        assert np.shares_memory(a, getattr(b2, name)) and not np.shares_memory(a, getattr(beam, name))
        with pytest.raises(ValueError):
            a.setflags(write=True)
    for got, want in zip(_results(m2), _results(m)):
        assert np.array_equal(got, want)
