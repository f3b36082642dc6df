"""Collision detection kernels (issue 21): shape poses, broad phase, narrow phase.

The column layout of the compiled contact constants and of the contact arrays is
``layout.py``; docs/architecture.md, "Contact", describes the design.
"""
