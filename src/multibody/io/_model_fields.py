"""Field readers and writers of the model file format (``model_file.py``): each takes a
value and the field's path (for errors that name it, e.g. ``hinges[3].lower``)."""
import numpy as np

REQUIRED = object()


def plain(v):
    """Metadata as JSON/YAML values: arrays to (nested) lists, NumPy scalars to Python ones."""
    if isinstance(v, (np.ndarray, np.generic)):
        return v.tolist()
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def metadata(v):
    """Geometry metadata back from JSON/YAML: lists of numbers become float arrays."""
    if isinstance(v, dict):
        return {k: metadata(x) for k, x in v.items()}
    if isinstance(v, list):
        flat = np.array(v, dtype=object).ravel() if v else []
        if len(flat) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in flat):
            return np.array(v, dtype=float)
        return [metadata(x) for x in v]
    return v


def get_field(d, key, where, conv, default=REQUIRED):
    """``conv(d[key], path)``, or ``default`` if absent; ValueError naming the path if required."""
    path = f"{where}.{key}" if where else key
    if key not in d:
        if default is REQUIRED:
            raise ValueError(f"{path}: required field missing")
        return default
    return conv(d[key], path)


def as_mapping(v, where, allowed):
    if not isinstance(v, dict):
        raise ValueError(f"{where}: expected a mapping, got {type(v).__name__}")
    for k in v:
        if allowed is not None and k not in allowed:
            raise ValueError(f"{where}: unknown field {k!r} (expected some of {', '.join(allowed)})")
    return v


def built(where, f, *args, **kwargs):
    """``f(*args, **kwargs)``, its ValueError/KeyError (the builder's checks) prefixed by ``where``."""
    try:
        return f(*args, **kwargs)
    except (ValueError, KeyError) as err:
        raise ValueError(f"{where}: {err.args[0] if err.args else err}") from None


def as_list(v, where):
    if isinstance(v, list):
        return v
    raise ValueError(f"{where}: expected a list, got {type(v).__name__}")


def as_str(v, where):
    if isinstance(v, str) and v:
        return v
    raise ValueError(f"{where}: expected a non-empty string, got {v!r}")


def as_optional_str(v, where):
    """A string or null (metadata such as ``urdf_type``)."""
    if v is None or isinstance(v, str):
        return v
    raise ValueError(f"{where}: expected a string or null, got {v!r}")


def as_bool(v, where):
    if isinstance(v, bool):
        return v
    raise ValueError(f"{where}: expected true or false, got {v!r}")


def limit_out(v):
    """A limit as written: a number, or a list per coordinate (null: unbounded)."""
    return [None if x is None else float(x) for x in v] if isinstance(v, (tuple, list)) else float(v)


def as_limit(v, where):
    """A limit as read: a number, or a list of numbers-or-null (one per coordinate)."""
    if isinstance(v, list):
        return tuple(None if x is None else as_float(x, f"{where}[{i}]") for i, x in enumerate(v))
    return as_float(v, where)


def as_float(v, where):
    """A number (YAML 1.1 reads '1e-5' as text, so numeric text is accepted too)."""
    ok = isinstance(v, (int, float, str)) and not isinstance(v, bool)
    try:
        return float(v if ok else "not a number")
    except ValueError:
        raise ValueError(f"{where}: expected a number, got {v!r}") from None


def shaped(*shapes):
    """A converter to a float array of one of ``shapes``."""
    def conv(v, where):
        try:
            a = None if isinstance(v, (str, bool)) else np.array(v, dtype=float)
        except (TypeError, ValueError):
            a = None
        if a is None or a.shape not in shapes:
            want = " or ".join("x".join(map(str, s)) or "1" for s in shapes)
            got = repr(v) if a is None else "shape " + "x".join(map(str, a.shape))
            raise ValueError(f"{where}: expected {want} numbers, got {got}")
        return a
    return conv


VEC3, VEC4, MAT4 = shaped((3,)), shaped((4,)), shaped((4, 4))


