"""A pressure slice and the divergence before and after the projection, for ball_drop at 16^3
after it lands. flipkit common/python/examples: `make python-examples` writes
build/python/pressure_slice.png (headless: matplotlib's Agg backend)."""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import flipkit

out = sys.argv[1] if len(sys.argv) > 1 else "build/python/pressure_slice.png"
sim = flipkit.Simulation("scenes/ball_drop.json",
                         overrides={"grid.resolution": [16, 16, 16], "grid.cell_size": 0.5})
for _ in range(10):                     # the ball lands near frame 7
    sim.advance_frame()
g = sim.grid
k = g.shape[2] // 2
fluid = g.cell == flipkit.FLUID
sim.run_stage("divergence")             # after the last substep's projection
after = np.where(fluid, g.div, np.nan)[:, :, k].copy()
sim.run_stage("gravity", dt=1 / 30)     # what the next substep starts from
sim.run_stage("divergence")
before = np.where(fluid, g.div, np.nan)[:, :, k].copy()
p = np.where(fluid, g.p, np.nan)[:, :, k]

fig, ax = plt.subplots(1, 3, figsize=(12, 4))
for a, field, title in zip(ax, (p, before, after),
                           ("pressure (Pa)", "divergence before projection (1/s)",
                            "divergence after (1/s)")):
    im = a.imshow(field.T, origin="lower", cmap="viridis")
    a.set_title(f"{title}, z = {k}")
    a.set_xlabel("i")
    a.set_ylabel("j")
    fig.colorbar(im, ax=a, shrink=0.8)
fig.suptitle(f"ball_drop 16^3, frame {sim.frame}: max |div| {np.nanmax(np.abs(before)):.3g} "
             f"before, {np.nanmax(np.abs(after)):.3g} after")
fig.tight_layout()
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
fig.savefig(out, dpi=80)
print(f"pressure_slice: {out}")
