"""flipkit from Python: run a scene, step it, and read its fields as NumPy arrays.

A thin ctypes layer over build/libflipkit.so (made by `make pylib` from the kit's own C, the
same stages and driver flipsim runs: in the student kit, your stages), so a scene stepped here
writes the same particle bytes as `build/flipsim` for the same frames.

    import flipkit
    sim = flipkit.Simulation("scenes/ball_drop.json", track="student", device="cpu",
                             overrides={"grid.resolution": [16, 16, 16]})
    sim.advance_frame()          # one frame: CFL substeps to the next frame's time
    sim.step()                   # one substep
    sim.particles.pos            # (count, 3) float32, metres  (a view: writes go to the sim)
    sim.grid.u                   # (nx + 1, ny, nz): x-face velocities, face (i, j, k) at
                                 #   (i dx, (j + 1/2) dx, (k + 1/2) dx)
    sim.grid.v, sim.grid.w       # (nx, ny + 1, nz), (nx, ny, nz + 1), likewise staggered
    sim.grid.p, sim.grid.cell    # (nx, ny, nz) at cell centres ((i + 1/2) dx, ...); cell:
                                 #   1 fluid, 0 air, -1 solid (flipkit.FLUID, AIR, SOLID)
    sim.run_stage("divergence")  # one stage of the track on the current state
    sim.save_state("s.state"); flipkit.Simulation.resume("s.state")

Errors are raised as flipkit.FlipkitError carrying the kit's one-line message (the file and
key of a bad scene; the stage, field and cell of a NaN).
"""
import ctypes
import json
import os

import numpy as np

__all__ = ["Simulation", "FlipkitError", "FLUID", "AIR", "SOLID", "STAGES"]

STAGES = ("advect", "gravity", "p2g", "g2p", "divergence", "laplacian", "jacobi", "gradient")


class FlipkitError(RuntimeError):
    """What the kit said went wrong, in its one line."""


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.environ.get("FLIPKIT_LIB"),
                 os.path.join(here, "..", "..", "..", "build", "libflipkit.so")):
        if path and os.path.exists(path):
            return os.path.abspath(path)
    raise FlipkitError("build/libflipkit.so not found: run `make pylib` in the kit "
                       "(or set FLIPKIT_LIB)")


_lib = ctypes.CDLL(_find_library())
_h = ctypes.c_void_p
_sig = {
    "fk_last_open_error": (ctypes.c_char_p, []),
    "fk_open": (_h, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                     ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]),
    "fk_resume": (_h, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]),
    "fk_error": (ctypes.c_char_p, [_h]),
    "fk_step": (ctypes.c_int, [_h]),
    "fk_advance_frame": (ctypes.c_int, [_h]),
    "fk_frame": (ctypes.c_int, [_h]),
    "fk_time": (ctypes.c_double, [_h]),
    "fk_frame_rate": (ctypes.c_double, [_h]),
    "fk_solver": (ctypes.c_char_p, [_h]),
    "fk_solver_variant": (ctypes.c_char_p, [_h]),
    "fk_particle_count": (ctypes.c_long, [_h]),
    "fk_particle_pos": (ctypes.POINTER(ctypes.c_float), [_h]),
    "fk_particle_vel": (ctypes.POINTER(ctypes.c_float), [_h]),
    "fk_particles_changed": (None, [_h]),
    "fk_grid_size": (None, [_h, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_float)]),
    "fk_grid_field": (ctypes.POINTER(ctypes.c_float), [_h, ctypes.c_char_p]),
    "fk_grid_cell": (ctypes.POINTER(ctypes.c_int8), [_h]),
    "fk_run_stage": (ctypes.c_int, [_h, ctypes.c_char_p, ctypes.c_float]),
    "fk_save_state": (ctypes.c_int, [_h, ctypes.c_char_p]),
    "fk_write_particles": (ctypes.c_int, [_h, ctypes.c_char_p]),
    "fk_record_residuals": (ctypes.c_int, [_h]),
    "fk_residuals": (ctypes.c_int, [_h, ctypes.POINTER(ctypes.c_double), ctypes.c_int]),
    "fk_close": (None, [_h]),
}
for _name, (_res, _args) in _sig.items():
    _fn = getattr(_lib, _name)
    _fn.restype, _fn.argtypes = _res, _args

FLUID, AIR, SOLID = 1, 0, -1   # common/constants.h


def _view(pointer, shape, dtype=np.float32):
    """A NumPy view of C memory in C order, reversed so index [i, j, k] is cell (i, j, k)."""
    count = int(np.prod(shape))
    if count == 0:
        return np.zeros(shape, dtype)
    flat = np.ctypeslib.as_array(pointer, shape=(count,))
    # the kit stores x fastest: (k, j, i) in C order, so transpose to (i, j, k)
    return flat.reshape(tuple(reversed(shape))).transpose()


class _Particles:
    def __init__(self, sim):
        self._sim = sim

    def __len__(self):
        return _lib.fk_particle_count(self._sim._handle)

    @property
    def pos(self):
        """(count, 3) float32 positions in metres: a view of the sim's own array."""
        n = len(self)
        return np.ctypeslib.as_array(_lib.fk_particle_pos(self._sim._handle), shape=(n, 3)) \
            if n else np.zeros((0, 3), np.float32)

    @property
    def vel(self):
        """(count, 3) float32 velocities in m/s: a view of the sim's own array."""
        n = len(self)
        return np.ctypeslib.as_array(_lib.fk_particle_vel(self._sim._handle), shape=(n, 3)) \
            if n else np.zeros((0, 3), np.float32)

    def changed(self):
        """Call after writing into pos or vel on the OpenCL device, so it takes them again."""
        _lib.fk_particles_changed(self._sim._handle)


class _Grid:
    def __init__(self, sim):
        self._sim = sim
        n = (ctypes.c_int * 3)()
        dx = ctypes.c_float()
        _lib.fk_grid_size(sim._handle, n, ctypes.byref(dx))
        self.shape = (n[0], n[1], n[2])
        self.dx = dx.value

    def _field(self, name, shape):
        ptr = _lib.fk_grid_field(self._sim._handle, name.encode())
        if not ptr:
            raise FlipkitError(_lib.fk_error(self._sim._handle).decode())
        return _view(ptr, shape)

    @property
    def u(self):
        nx, ny, nz = self.shape
        return self._field("u", (nx + 1, ny, nz))

    @property
    def v(self):
        nx, ny, nz = self.shape
        return self._field("v", (nx, ny + 1, nz))

    @property
    def w(self):
        nx, ny, nz = self.shape
        return self._field("w", (nx, ny, nz + 1))

    @property
    def p(self):
        return self._field("p", self.shape)

    @property
    def div(self):
        """The divergence the last pressure solve was given (or run_stage("divergence") wrote)."""
        return self._field("div", self.shape)

    @property
    def lap(self):
        """L p, as run_stage("laplacian") left it."""
        return self._field("lap", self.shape)

    @property
    def cell(self):
        return _view(_lib.fk_grid_cell(self._sim._handle), self.shape, np.int8)


class Simulation:
    """A scene's simulation on the kit's C stages (or the reference's OpenCL pipeline).

    track: "reference" or "student"; None is the kit's default (the reference in the full kit,
    your stages in the student kit). device: "cpu", or "opencl" in the full kit."""

    def __init__(self, scene, track=None, device="cpu", overrides=None, _handle=None):
        self._handle = None
        if _handle is None:
            sets = [f"{k}={json.dumps(v)}" for k, v in (overrides or {}).items()]
            arr = (ctypes.c_char_p * max(len(sets), 1))(*[s.encode() for s in sets])
            _handle = _lib.fk_open(os.fspath(scene).encode(), track and track.encode(),
                                   device.encode(), arr, len(sets))
            if not _handle:
                raise FlipkitError(_lib.fk_last_open_error().decode())
        self._handle = _handle
        self.particles = _Particles(self)
        self.grid = _Grid(self)

    @classmethod
    def resume(cls, state_path, track=None, device="cpu"):
        """The simulation a state file (save_state, or flipsim --checkpoint-every) holds."""
        h = _lib.fk_resume(os.fspath(state_path).encode(), track and track.encode(),
                           device.encode())
        if not h:
            raise FlipkitError(_lib.fk_last_open_error().decode())
        return cls(None, _handle=h)

    def _check(self, rc):
        if rc != 0:
            raise FlipkitError(_lib.fk_error(self._handle).decode())

    def step(self):
        """One CFL substep (the substeps up to a frame's end make that frame)."""
        self._check(_lib.fk_step(self._handle))

    def advance_frame(self):
        """Substeps up to the next frame, as flipsim takes them."""
        self._check(_lib.fk_advance_frame(self._handle))

    @property
    def frame(self):
        return _lib.fk_frame(self._handle)

    @property
    def time(self):
        return _lib.fk_time(self._handle)

    @property
    def solver(self):
        """The pressure solver this run really uses: a name the track does not have falls back
        to the track's jacobi ("jacobi" here), and use_gauss_seidel gives "sor"."""
        return _lib.fk_solver(self._handle).decode()

    @property
    def solver_variant(self):
        """What that solver is, in words (as flipsim's log start line says)."""
        return _lib.fk_solver_variant(self._handle).decode()

    def run_stage(self, stage, dt=None):
        """One stage of the track on the current state (dt: one frame's by default)."""
        if dt is None:
            dt = 1.0 / _lib.fk_frame_rate(self._handle)
        self._check(_lib.fk_run_stage(self._handle, stage.encode(), dt))

    def save_state(self, path):
        self._check(_lib.fk_save_state(self._handle, os.fspath(path).encode()))

    def write_particles(self, path):
        """The particles as flipsim writes them (binary PLY)."""
        self._check(_lib.fk_write_particles(self._handle, os.fspath(path).encode()))

    def record_residuals(self):
        """From now on each pressure solve (C stages) records its residual per iteration."""
        self._check(_lib.fk_record_residuals(self._handle))

    @property
    def residuals(self):
        """The last solve's relative residual |b - L p| / |b| after each iteration ([0]: the
        initial guess's), once record_residuals() was called."""
        buf = (ctypes.c_double * 100001)()
        n = _lib.fk_residuals(self._handle, buf, len(buf))
        return np.array(buf[:n])

    def close(self):
        if getattr(self, "_handle", None):
            _lib.fk_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
