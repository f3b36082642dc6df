"""Readers for robot description files (URDF) into ``multibody`` model objects."""
from .urdf import load_urdf, load_urdf_string, resolve_uri
from .sdf import load_sdf

__all__ = ["load_sdf", "load_urdf", "load_urdf_string", "resolve_uri"]
