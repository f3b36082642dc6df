"""Readers for robot description files (URDF) into ``multibody`` model objects."""
from .urdf import load_urdf, load_urdf_string, resolve_uri

__all__ = ["load_urdf", "load_urdf_string", "resolve_uri"]
