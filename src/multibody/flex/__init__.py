"""Flexible bodies by assumed modes: modal data, its file format, and a beam generator.

* ``ModalData`` (``modal_data.py``): modes, modal integrals and node mode shapes of one
  body, validated on construction; every field's frame, shape and units are in that
  module's docstring.
* ``beam_modes`` (``beam_modes.py``): Euler-Bernoulli or Timoshenko beam modes by finite
  elements (``beam_element.py``), cantilever or free-free.
* ``modal_data_from_nodes`` (``modal_integrals.py``): modal data with configuration-
  dependent integrals from nodes with masses (or a nodal mass matrix, dense or
  ``scipy.sparse``) and mode shapes; modal stiffness and damping per mode or as matrices.
* ``read_fe_matrix`` / ``load_reduced_model`` (``fe_import.py``): reduced finite-element
  models from Matrix Market (``.mtx``) and ``.npz`` files, read bounded.
* ``load_modal_data`` / ``ModalData.save`` (``modal_file.py``): ``.npz`` files, and
  ``.h5``/``.hdf5`` with h5py. The keys are listed in ``docs/modal_data.md``.
"""
from .beam_modes import beam_modes
from .fe_import import load_reduced_model, read_fe_matrix
from .modal_data import ModalData
from .modal_file import load_modal_data, save_modal_data
from .modal_integrals import modal_data_from_nodes

# ModalData.save is save_modal_data, attached here: modal_file sits above modal_data (reading
# a file makes a ModalData), so modal_data does not import it (as multibody/methods.py does
# for Multibody's methods)
ModalData.save = save_modal_data

__all__ = ["ModalData", "beam_modes", "load_modal_data", "load_reduced_model", "modal_data_from_nodes",
           "read_fe_matrix", "save_modal_data"]
