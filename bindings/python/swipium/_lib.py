"""Finds libswipium and declares the C prototypes the binding calls (ctypes, no compiled code)."""

import ctypes
import ctypes.util
import glob
import os

# Opaque handles travel as void pointers; char ** outputs are read as void pointers too, so that
# ctypes never copies them into a Python bytes object behind our back (we must pass the original
# pointer to sw_free).
_vp = ctypes.c_void_p
_vpp = ctypes.POINTER(ctypes.c_void_p)
_cp = ctypes.c_char_p
_int = ctypes.c_int
_size = ctypes.c_size_t

ENV_VAR = "SWIPIUM_LIBRARY"
_SONAME = "libswipium.so.0"


class LibraryNotFound(OSError):
    """libswipium could not be located or loaded."""


def _candidates():
    """Where to look, in order: the environment variable, a build tree next to this checkout, the system."""
    env = os.environ.get(ENV_VAR)
    if env:
        # An explicit choice is final: a wrong path must fail loudly, not fall back silently.
        yield env, True
        return
    here = os.path.dirname(os.path.abspath(__file__))
    source_root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    built = []
    for path in glob.glob(os.path.join(source_root, "*", "libswipium", _SONAME)):
        try:
            built.append((os.stat(path).st_mtime, path))
        except OSError:
            continue  # a dangling link in a build directory being rebuilt or removed
    # Newest build first: the tree a developer just rebuilt is the one they mean. One that cannot be
    # loaded (a sanitizer build, say) is passed over for the next.
    for _, path in sorted(built, reverse=True):
        yield path, False
    found = ctypes.util.find_library("swipium")
    if found:
        yield found, False


_SANITIZER_RUNTIMES = (b"libasan.so.", b"libtsan.so.", b"libubsan.so.", b"libhwasan.so.")


def _missing_sanitizer(path):
    """The sanitizer runtime @path was linked against when this process has not loaded it first, else None.

    Loading such a library does not raise: the runtime prints an error and ends the whole process, so a
    sanitizer build found next to this checkout is passed over before ctypes ever sees it."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    preload = os.environ.get("LD_PRELOAD", "")
    for runtime in _SANITIZER_RUNTIMES:
        if runtime in data and runtime.decode()[:-1] not in preload:
            return runtime.decode().rstrip(".")
    return None


def load():
    """Loads libswipium and returns the declared ctypes.CDLL."""
    tried = []
    for path, explicit in _candidates():
        runtime = None if explicit else _missing_sanitizer(path)
        if runtime:
            tried.append(f"{path} (built with a sanitizer: it needs {runtime} preloaded)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            if explicit:
                raise LibraryNotFound(f"{ENV_VAR}={path} could not be loaded: {e}") from None
            tried.append(f"{path} ({e})")
            continue
        _declare(lib)
        lib.swipium_path = path
        return lib
    detail = "; tried " + ", ".join(tried) if tried else ""
    raise LibraryNotFound(
        f"libswipium not found{detail}. Set {ENV_VAR} to the path of libswipium.so, "
        "build the project with meson in this checkout, or install it so the dynamic linker finds it."
    )


def _fn(lib, name, restype, *argtypes, optional=False):
    try:
        f = getattr(lib, name)
    except AttributeError:
        if optional:
            return
        raise LibraryNotFound(f"{getattr(lib, '_name', 'libswipium')} lacks {name}: library too old for this binding")
    f.restype = restype
    f.argtypes = list(argtypes)


class RootRequest(ctypes.Structure):
    """struct sw_root_request (swipium/project.h), version 1."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("project_root", _cp),
        ("mcp_roots", ctypes.POINTER(_cp)),
        ("cwd", _cp),
        ("home", _cp),
        ("use_process_env", _int),
    ]


ROOT_REQUEST_VERSION = 1

# typedef void (*sw_log_fn)(sw_log_level level, const char *msg, const char *fields_json, void *userdata);
LOG_FN = ctypes.CFUNCTYPE(None, _int, _cp, _cp, _vp)


class RenderOptions(ctypes.Structure):
    """struct sw_report_render_options (swipium/report.h), version 1."""

    _fields_ = [
        ("version", ctypes.c_uint),
        ("project_root", _cp),
    ]


RENDER_OPTIONS_VERSION = 1


def _declare(lib):
    # common.h
    _fn(lib, "sw_strerror", _cp, _int)
    _fn(lib, "sw_error_code", _int, _vp)
    _fn(lib, "sw_error_failure_code", _cp, _vp)
    _fn(lib, "sw_error_message", _cp, _vp)
    _fn(lib, "sw_error_hint", _cp, _vp)
    _fn(lib, "sw_error_details_json", _cp, _vp)
    _fn(lib, "sw_error_free", None, _vp)
    _fn(lib, "sw_free", None, _vp)
    # context.h
    _fn(lib, "sw_ctx_new", _int, _vpp, _vpp)
    _fn(lib, "sw_ctx_free", None, _vp)
    _fn(lib, "sw_ctx_set_log_fn", None, _vp, LOG_FN, _vp)
    _fn(lib, "sw_ctx_set_log_level", None, _vp, _int)
    _fn(lib, "sw_ctx_get_log_level", _int, _vp)
    _fn(lib, "sw_log_level_parse", _int, _cp, ctypes.POINTER(_int))
    _fn(lib, "sw_ctx_set_home", _int, _vp, _cp, _vpp)
    _fn(lib, "sw_ctx_get_home", _cp, _vp)
    # util.h
    _fn(lib, "sw_file_write_atomic", _int, _cp, _vp, _size, ctypes.c_uint, _vpp)
    _fn(lib, "sw_sha256_hex", None, _vp, _size, _cp)
    _fn(lib, "sw_version", _cp)
    _fn(lib, "sw_compatible_with", _cp)
    # project.h
    _fn(lib, "sw_project_root_resolve", _int, ctypes.POINTER(RootRequest), _vpp, _vpp, _vpp)
    _fn(lib, "sw_project_has_marker", _int, _cp)
    # report.h (optional so that core keeps working against a library built without it)
    _fn(lib, "sw_report_format_parse", _int, _cp, ctypes.POINTER(_int), optional=True)
    _fn(lib, "sw_report_load_data", _int, _vp, _size, _vpp, _vpp, optional=True)
    _fn(lib, "sw_report_load_file", _int, _cp, _vpp, _vpp, optional=True)
    _fn(lib, "sw_report_free", None, _vp, optional=True)
    _fn(lib, "sw_report_session_id", _cp, _vp, optional=True)
    _fn(lib, "sw_report_gate", _int, _vp, _cp, _vpp, _vpp, optional=True)
    # catalog.h
    _fn(lib, "sw_catalog_lookup", _int, _cp, _vpp, _vpp, optional=True)
    _fn(lib, "sw_catalog_list_json", _int, _vpp, _vpp, optional=True)
    _fn(lib, "sw_catalog_count", _size, optional=True)
    # flow.h
    _fn(lib, "sw_flow_check", _int, _cp, _vpp, _vpp, optional=True)
    _fn(lib, "sw_report_find", _int, _cp, _cp, _cp, _vpp, _vpp, optional=True)
    _fn(lib, "sw_report_render", _int, _vp, _int, ctypes.POINTER(RenderOptions), _vpp, ctypes.POINTER(_size), _vpp,
        _vpp, optional=True)


def has(lib, name):
    """True when the loaded library exports @name."""
    return hasattr(lib, name)
