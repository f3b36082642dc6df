"""A compiled entry kernel handed to a batch kernel by its address (a first-class function).

A kernel that calls another Numba function links that function's code into its own and has
LLVM optimise and compile all of it again. A batch kernel built around a flex entry kernel
did so for the whole flex code, once per stacked call: 10-20 s for each of them on the first
use, after the single call had compiled the same code already. Given by its address, the
entry kernel is the single call's own compiled code: the batch kernel holds only its
``prange`` loop and the sample's slicing, and compiles in a fraction of a second.

The cost is an indirect call through Numba's C wrapper of the function, about 40 ns a
sample: under 1 % of Talos' forward dynamics, nothing beside a flex sample's microseconds,
but 6 % of UR5's, whose PIN-only batch kernels link their entry kernels (``pin_batch``).
"""
import warnings

from numba import typeof
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.core.types import WrapperAddressProtocol

# Numba calls first-class functions experimental and says so at every compile of a kernel
# that takes one: those are the batch kernels here, whose pointer calls the tests check bit
# for bit against single calls.
warnings.filterwarnings("ignore", ".*First-class function type feature is experimental",
                        NumbaExperimentalFeatureWarning)


def returned_types(dispatcher, *args):
    """The Numba types that the jitted ``dispatcher`` returns for ``args``, as Numba types
    them inside a kernel (compiled for their types first where it is not yet): the static
    types of the views a kernel hands an ``EntryPointer``'s function. ``typeof`` of the views
    themselves can differ: a row of ``T[:, 1:]`` is an 'A' array in a kernel, a 'C' one when
    sliced in Python."""
    argtypes = tuple(typeof(a) for a in args)
    if argtypes not in dispatcher.overloads:
        dispatcher.compile(argtypes)
    return dispatcher.overloads[argtypes].signature.return_type


class EntryPointer(WrapperAddressProtocol):
    """The compiled overload ``argtypes`` of the Numba dispatcher ``dispatcher`` as a value
    that a kernel takes as an argument and calls (Numba types it as a ``FunctionType`` of
    that signature); compiles it first where it is not yet (once per process: its cache
    holds it). The pointer holds the compile result, which keeps the code alive."""

    def __init__(self, dispatcher, argtypes):
        argtypes = tuple(argtypes)
        if argtypes not in dispatcher.overloads:
            dispatcher.compile(argtypes)
        self._result = dispatcher.overloads[argtypes]
        self._address = self._result.library.get_pointer_to_function(self._result.fndesc.llvm_cfunc_wrapper_name)

    def __wrapper_address__(self):
        return self._address

    def signature(self):
        return self._result.signature
