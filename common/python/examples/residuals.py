"""The residual per iteration of every C solver this kit's track runs (the student kit's:
jacobi and the given gauss_seidel and sor) for one solve: the first substep of the
hydrostatic tank at 32x48x24. flipkit common/python/examples: `make python-examples` writes
build/python/residuals.png (headless: matplotlib's Agg backend)."""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

import flipkit

out = sys.argv[1] if len(sys.argv) > 1 else "build/python/residuals.png"
fig, ax = plt.subplots(figsize=(7, 4.5))
for solver in ("jacobi", "gauss_seidel", "sor", "pcg", "multigrid", "mgpcg"):
    with flipkit.Simulation("scenes/hydrostatic.json",
                            overrides={"grid.resolution": [32, 48, 24], "grid.cell_size": 0.05,
                                       "pressure.solver": solver, "pressure.iterations": 2000}) as sim:
        # A name this kit's track does not have falls back to its jacobi (the student kit has
        # no pcg, multigrid or mgpcg): drawing it would put jacobi's curve under another name.
        if sim.solver != solver:
            print(f"residuals: {solver} is not in this kit's track: it falls back to the "
                  f"track's {sim.solver}, so it is not drawn")
            continue
        sim.record_residuals()
        sim.step()
        r = sim.residuals
        ax.semilogy(range(len(r)), r, label=f"{solver} ({len(r) - 1})")
ax.axhline(1e-6, color="grey", linestyle=":", label="tolerance")
ax.set_xlabel("iteration")
ax.set_ylabel("|b - L p| / |b|")
ax.set_title("hydrostatic tank 32x48x24, first solve")
ax.legend()
fig.tight_layout()
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
fig.savefig(out, dpi=80)
print(f"residuals: {out}")
