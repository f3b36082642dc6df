

def test_derivatives_do_not_depend_on_where_the_tree_is():
    """Tree coordinates (about the root link's origin): the same free-floating tree 7e6 m out
    gives the same derivatives (to the rounding of its position)."""
    rng = np.random.default_rng(9)
    m = random_tree(rng, ["free_quat"] + KINDS[:4], n_bodies=6)
    q = m.random_q(rng)
    u, x = rng.normal(size=(2, m.nu))
    far = q.copy()
    far[4:7] += 7e6
    for fn in (m.inverse_dynamics_derivatives, m.forward_dynamics_derivatives):
        for near_part, far_part in zip(fn(q, u, x), fn(far, u, x)):
            assert_close(far_part, near_part, 1e-8, fn.__name__)
