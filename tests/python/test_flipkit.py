"""The Python package against the kit: the same particle bytes as flipsim, arrays of the
documented shapes, errors as exceptions with the kit's one-line messages.
flipkit tests/python: run by `make check-python` (Debian's python3, numpy; unittest)."""
import math
import os
import subprocess
import tempfile
import unittest

import numpy as np

import flipkit

SMALL = {"grid.resolution": [16, 16, 16], "grid.cell_size": 0.5, "frames": 4}
FLIPSIM = os.environ.get("FLIPSIM", "build/flipsim")


class SameAsTheCli(unittest.TestCase):
    def test_frames_byte_for_byte(self):
        """Frames stepped from Python (by substeps and by frames) are flipsim's bytes."""
        with tempfile.TemporaryDirectory() as d:
            sets = sum((["--set", f"{k}={v}".replace(" ", "")] for k, v in SMALL.items()), [])
            subprocess.run([FLIPSIM, "--quiet", "--device", "cpu", "--out", f"{d}/cli"] + sets +
                           ["--set", "output.surface=false", "--set", "output.preview=false",
                            "scenes/ball_drop.json"], check=True)
            with flipkit.Simulation("scenes/ball_drop.json", overrides=SMALL) as by_frame, \
                    flipkit.Simulation("scenes/ball_drop.json", overrides=SMALL) as by_step:
                for f in range(1, 5):
                    by_frame.advance_frame()
                    while by_step.frame < f:
                        by_step.step()
                    self.assertAlmostEqual(by_step.time, f / 30.0, places=12)
                    for sim, how in ((by_frame, "frame"), (by_step, "step")):
                        sim.write_particles(f"{d}/{how}.ply")
                        with open(f"{d}/{how}.ply", "rb") as a, \
                                open(f"{d}/cli/particles/{f:06d}.ply", "rb") as b:
                            self.assertEqual(a.read(), b.read(),
                                             f"frame {f} by {how}: not flipsim's bytes")


class Arrays(unittest.TestCase):
    def setUp(self):
        self.sim = flipkit.Simulation("scenes/ball_drop.json", overrides=SMALL)
        self.sim.advance_frame()

    def tearDown(self):
        self.sim.close()

    def test_shapes_and_finite(self):
        g = self.sim.grid
        nx, ny, nz = g.shape
        self.assertEqual((nx, ny, nz), (16, 16, 16))
        self.assertEqual(g.u.shape, (nx + 1, ny, nz))
        self.assertEqual(g.v.shape, (nx, ny + 1, nz))
        self.assertEqual(g.w.shape, (nx, ny, nz + 1))
        self.assertEqual(g.p.shape, (nx, ny, nz))
        self.assertEqual(g.cell.shape, (nx, ny, nz))
        n = len(self.sim.particles)
        self.assertGreater(n, 1000)
        self.assertEqual(self.sim.particles.pos.shape, (n, 3))
        for name in ("u", "v", "w", "p"):
            self.assertTrue(np.isfinite(getattr(g, name)).all(), name)
        self.assertTrue(np.isfinite(self.sim.particles.vel).all())

    def test_layout_matches_the_cells(self):
        """[i, j, k] is cell (i, j, k): the outer layer is solid, the falling ball is fluid
        where the particles are."""
        g = self.sim.grid
        cell = g.cell
        self.assertTrue((cell[0, :, :] == flipkit.SOLID).all() and (cell[:, -1, :] == flipkit.SOLID).all())
        pos = self.sim.particles.pos
        ijk = np.floor(pos / g.dx).astype(int)
        self.assertTrue((cell[ijk[:, 0], ijk[:, 1], ijk[:, 2]] == flipkit.FLUID).all())

    def test_divergence_before_and_after_projection(self):
        """run_stage: the divergence of the velocity the substep left is near zero in the
        fluid (the projection's), and p2g then divergence of a fresh splat is not."""
        sim = self.sim
        sim.step()
        sim.run_stage("divergence")
        fluid = sim.grid.cell == flipkit.FLUID
        after = np.abs(sim.grid.div[fluid]).max()
        sim.run_stage("gravity", dt=0.05)
        sim.run_stage("divergence")
        before = np.abs(sim.grid.div[fluid]).max()
        self.assertLess(after, 1e-3 * max(before, 1e-30) + 1e-4, (after, before))
        with self.assertRaisesRegex(flipkit.FlipkitError, 'stage "nope"'):
            sim.run_stage("nope")


class Errors(unittest.TestCase):
    def test_bad_scene_names_file_and_key(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"name": "x", "grid": {"resolution": [8, 8, 8], "cell_size": -1}}')
        try:
            with self.assertRaises(flipkit.FlipkitError) as e:
                flipkit.Simulation(f.name)
            self.assertIn(f.name, str(e.exception))
            self.assertIn("grid.cell_size", str(e.exception))
        finally:
            os.unlink(f.name)
        with self.assertRaisesRegex(flipkit.FlipkitError, "track"):
            flipkit.Simulation("scenes/ball_drop.json", track="nobody")

    def test_nan_names_the_stage(self):
        with flipkit.Simulation("scenes/ball_drop.json", overrides=SMALL) as sim:
            sim.particles.vel[0, 0] = math.nan
            with self.assertRaises(flipkit.FlipkitError) as e:
                sim.advance_frame()
            self.assertIn("p2g", str(e.exception))


class Solvers(unittest.TestCase):
    def test_the_solver_that_runs(self):
        """sim.solver is what runs: the reference's own pcg, the student track's fallback to
        its jacobi, use_gauss_seidel's sor; the residual count follows the solver."""
        cases = (("reference", {"pressure.solver": "pcg"}, "pcg", "MIC(0)"),
                 ("student", {"pressure.solver": "pcg"}, "jacobi", "jacobi stage"),
                 ("student", {"pressure.solver": "mgpcg"}, "jacobi", "jacobi stage"),
                 ("student", {"use_gauss_seidel": True}, "sor", "given solver"))
        for track, sets, solver, variant in cases:
            with self.subTest(track=track, sets=sets):
                with flipkit.Simulation("scenes/hydrostatic.json", track=track,
                                        overrides=dict(SMALL, **sets)) as sim:
                    self.assertEqual(sim.solver, solver)
                    self.assertIn(variant, sim.solver_variant)


class States(unittest.TestCase):
    def test_resume_equal(self):
        with tempfile.TemporaryDirectory() as d:
            with flipkit.Simulation("scenes/ball_drop.json", overrides=SMALL) as a:
                a.advance_frame()
                a.save_state(f"{d}/s.state")
                a.advance_frame()
                a.write_particles(f"{d}/a.ply")
            b = flipkit.Simulation.resume(f"{d}/s.state")
            self.assertEqual(b.frame, 1)
            b.advance_frame()
            b.write_particles(f"{d}/b.ply")
            b.close()
            with open(f"{d}/a.ply", "rb") as x, open(f"{d}/b.ply", "rb") as y:
                self.assertEqual(x.read(), y.read())


if __name__ == "__main__":
    unittest.main()
