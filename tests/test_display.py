"""dump_tree / display_model: readable at any depth, O(N) output."""
import multibody as mb


def test_dump_of_a_long_chain_is_linear_in_size():
    m = mb.Multibody()
    m.add_serial_chain("l", 5000)
    m.add_node("tip", "l4999")
    lines = m.dump_tree().splitlines()
    assert len(lines) == 5000 + 3  # header, world, bodies, the node
    assert max(len(x) for x in lines) < 200
    assert "l4999" in lines[-2] and "… depth 4999" in lines[-2]
    assert "node tip" in lines[-1]


def test_dump_of_a_tree_shows_its_branches():
    m = mb.Multibody()
    m.add_tree("t", 2, 2, 2)
    text = m.dump_tree()
    assert text.count("├─") >= 1 and text.count("└─") >= 3
    assert all(name in text for name in m.body_names)
