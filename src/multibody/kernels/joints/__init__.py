"""One module per subhinge kind (the codes and sizes: ``kernels/kinds.py``'s table), each
holding that kind's formulas: ``motion_subspace`` (NumPy, for compile), ``placement``
(R_J, p_J at q) and, for kinds whose coordinates are not a vector space, the coordinate
maps ``qdot``, ``integrate``, the stepping loop's Munthe-Kaas rate ``dexp_inv``, and the
chart (``chart_angle``, ``recentre_chart``, ``to_start_chart``) or quaternion
(``unit_quaternion``, ``normalize``) upkeep. ``euclidean`` serves the vector-space kinds,
``group_maps`` the group formulas they share, ``dispatch`` the switch on the kind code.
The kinds' Numba functions are compiled once each, without reference counting
(``_nrt=False``; see ``dispatch``), but PIN's ``link_placement``, inlined into the placement
pass as before.

Nothing is imported here, so that importing one kind's module imports only what it needs.
"""
