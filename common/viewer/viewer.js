// viewer.js — `make view`'s page: a run's particles, surface, diffuse particles and solids per frame
// flipkit common/viewer/: frames are the run's own PLY files (three's PLYLoader); with two runs,
// two views share one camera and one slider, and a mode colours each particle by its distance to the other run.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { PLYLoader } from 'three/addons/loaders/PLYLoader.js';

// What the page shows, as data: #state holds it as JSON for a test (and for a curious student).
const state = { ready: false, runs: 0, frames: 0, frame: null, time: null, substeps: null,
                particles: [], surface_triangles: [], diffuse: [], mode: 'speed',
                distance: null, load_ms: null, draw_ms: null, errors: [] };
const $ = (id) => document.getElementById(id);

function view_report() {
    $('state').textContent = JSON.stringify(state);
}

function view_fail(msg) {
    state.errors.push(msg);
    $('message').hidden = false;
    $('message').textContent = msg;
    view_report();
}

window.addEventListener('error', (e) => view_fail(String(e.message)));
window.addEventListener('unhandledrejection', (e) => view_fail(String(e.reason && e.reason.message || e.reason)));

// ---- colours ---------------------------------------------------------------------------
// One ramp for speed and for distance: dark blue (0) through cyan and yellow to red (the scale's top).
const RAMP = [[0.10, 0.15, 0.55], [0.10, 0.55, 0.95], [0.30, 0.90, 0.80], [0.98, 0.90, 0.25], [0.90, 0.20, 0.12]];

function view_ramp(t, out, o) {
    t = Math.min(Math.max(t, 0), 1) * (RAMP.length - 1);
    const i = Math.min(Math.floor(t), RAMP.length - 2), f = t - i;
    for (let c = 0; c < 3; c++) out[o + c] = RAMP[i][c] + (RAMP[i + 1][c] - RAMP[i][c]) * f;
}

function view_ramp_css() {
    return `linear-gradient(to right, ${RAMP.map((c) => `rgb(${c.map((v) => Math.round(v * 255)).join(',')})`).join(', ')})`;
}

// Diffuse particles by type (common/writers/diffuse.h: 0 spray, 1 foam, 2 bubble).
const DIFFUSE_COLOURS = [[1.0, 1.0, 1.0], [0.85, 0.80, 0.55], [0.35, 0.75, 1.0]];

// ---- the runs ----------------------------------------------------------------------------
// runs.json (serve.mjs): per run its directory, frame numbers per kind, log.txt and scene.json.
function view_parse_log(text) {
    // "frame 000003 t=0.100000 substeps=1 particles=7264 ...": a resumed run's later lines win.
    const frames = new Map([[0, { t: 0, substeps: 0 }]]);
    for (const line of text.split('\n')) {
        const m = /^frame (\d+) t=([0-9.eE+-]+) substeps=(\d+)/.exec(line);
        if (m) frames.set(Number(m[1]), { t: Number(m[2]), substeps: Number(m[3]) });
    }
    return frames;
}

function view_domain(run) {
    const g = run.scene && run.scene.grid;
    if (!g) return null; // a run from before flipsim wrote scene.json: no solids, the frame's own bounds
    return { dx: g.cell_size, size: g.resolution.map((n) => n * g.cell_size) };
}

// The speed that maps to red: what a drop from the top of the domain reaches (as the previews),
// or a shape's initial speed when that is more, so one scale holds for the whole run.
function view_speed_scale(run) {
    const s = run.scene;
    if (!s) return null;
    const g = s.gravity || [0, -9.81, 0];
    let fastest = Math.sqrt(2 * Math.hypot(...g) * s.grid.resolution[1] * s.grid.cell_size);
    const shapes = [...(s.fluid || []), ...(s.events || []).flatMap((e) => e.fluid || [])];
    for (const sh of shapes) if (sh.velocity) fastest = Math.max(fastest, Math.hypot(...sh.velocity));
    return fastest > 0 ? fastest : 1;
}

// ---- the scene graph per view ------------------------------------------------------------
function view_make(run) {
    const scene = new THREE.Scene();
    scene.add(new THREE.HemisphereLight(0xdde8ff, 0x303030, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(1, 2, 1.5);
    scene.add(sun);
    const dom = view_domain(run);
    const v = { run, scene, dom, log: view_parse_log(run.log), speed_max: view_speed_scale(run),
                points: null, surface: null, diffuse: null, frame: null };
    if (dom) {
        const box = new THREE.BoxGeometry(...dom.size);
        box.translate(dom.size[0] / 2, dom.size[1] / 2, dom.size[2] / 2);
        scene.add(new THREE.LineSegments(new THREE.EdgesGeometry(box), new THREE.LineBasicMaterial({ color: 0x6a7380 })));
        view_add_solids(scene, run.scene.solids || []);
    }
    const size = dom ? dom.dx * 0.45 : 0.05;
    v.points = new THREE.Points(new THREE.BufferGeometry(), new THREE.PointsMaterial({ size, vertexColors: true }));
    v.diffuse = new THREE.Points(new THREE.BufferGeometry(), new THREE.PointsMaterial({ size: size * 0.6, vertexColors: true }));
    // The surface is closed and faces outward (scenes/README.md), so its front faces are all of
    // it: one pass, not the two a transparent double-sided material takes.
    v.surface = new THREE.Mesh(new THREE.BufferGeometry(), new THREE.MeshLambertMaterial({
        color: 0x3d8bff, transparent: true, opacity: 0.45, depthWrite: false }));
    v.points.frustumCulled = v.diffuse.frustumCulled = v.surface.frustumCulled = false;
    scene.add(v.points, v.surface, v.diffuse);
    return v;
}

// Solids as the scene file gives them (scenes/README.md, Shapes): boxes and spheres, in grey.
function view_add_solids(scene, solids) {
    const mat = new THREE.MeshStandardMaterial({ color: 0x9a9488, roughness: 0.8, transparent: true, opacity: 0.85 });
    for (const s of solids) {
        let mesh = null;
        if (s.box) {
            const lo = s.box.min, hi = s.box.max;
            mesh = new THREE.Mesh(new THREE.BoxGeometry(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]), mat);
            mesh.position.set((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
        } else if (s.sphere) {
            mesh = new THREE.Mesh(new THREE.SphereGeometry(s.sphere.radius, 48, 24), mat);
            mesh.position.set(...s.sphere.center);
        }
        if (mesh) scene.add(mesh);
    }
}

// ---- loading frames ----------------------------------------------------------------------
const particle_loader = new PLYLoader();
particle_loader.setCustomPropertyNameMapping({ velocity: ['vx', 'vy', 'vz'] });
const diffuse_loader = new PLYLoader();
diffuse_loader.setCustomPropertyNameMapping({ velocity: ['vx', 'vy', 'vz'], kind: ['type'] });
const surface_loader = new PLYLoader();

const cache = new Map(); // "run:frame" -> loaded geometries; the last few frames, for scrubbing back
const CACHE_FRAMES = 12;

async function view_fetch_ply(url, loader) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: ${res.status} ${res.statusText}`);
    const buf = await res.arrayBuffer();
    try {
        return loader.parse(buf);
    } catch (e) {
        throw new Error(`${url}: not a PLY file three can read (${e.message})`);
    }
}

async function view_load(r, run, frame) {
    const key = `${r}:${frame}`;
    if (cache.has(key)) return cache.get(key);
    const name = String(frame).padStart(6, '0') + '.ply';
    const want = (kind) => run[kind].includes(frame);
    const promise = Promise.all([
        want('particles') ? view_fetch_ply(`/run/${r}/particles/${name}`, particle_loader) : null,
        want('surface') ? view_fetch_ply(`/run/${r}/surface/${name}`, surface_loader) : null,
        want('diffuse') ? view_fetch_ply(`/run/${r}/diffuse/${name}`, diffuse_loader) : null,
    ]).then(([points, surface, diffuse]) => {
        if (surface) surface.computeVertexNormals();
        return { points, surface, diffuse };
    });
    cache.set(key, promise);
    promise.catch(() => cache.delete(key));
    while (cache.size > CACHE_FRAMES) cache.delete(cache.keys().next().value);
    return promise;
}

// ---- colouring ---------------------------------------------------------------------------
function view_colour_speed(v, geo) {
    const vel = geo.getAttribute('velocity');
    const n = geo.getAttribute('position').count;
    const col = new Float32Array(n * 3);
    let top = v.speed_max;
    if (!top) { // no scene.json: this frame's fastest particle is red
        top = 1e-6;
        for (let i = 0; i < n; i++) top = Math.max(top, Math.hypot(vel.getX(i), vel.getY(i), vel.getZ(i)));
    }
    const a = vel ? vel.array : null;
    for (let i = 0; i < n; i++) {
        const s = a ? Math.hypot(a[3 * i], a[3 * i + 1], a[3 * i + 2]) : 0;
        view_ramp(s / top, col, 3 * i);
    }
    return col;
}

// Distance from each of pos's particles to the nearest of other's, exact up to `cap` (one cell):
// other's particles are bucketed into cells of size cap, so the nearest within cap is in the
// 27 cells around; farther ones count as cap. Returns the distances.
function view_nearest(pos, other, cap) {
    const n = pos.length / 3, m = other.length / 3;
    const d = new Float32Array(n).fill(cap);
    if (m === 0) return d;
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let j = 0; j < m; j++)
        for (let c = 0; c < 3; c++) {
            lo[c] = Math.min(lo[c], other[3 * j + c]);
            hi[c] = Math.max(hi[c], other[3 * j + c]);
        }
    const dim = lo.map((l, c) => Math.max(1, Math.floor((hi[c] - l) / cap) + 1));
    const cellOf = (x, c) => Math.floor((x - lo[c]) / cap);
    const start = new Int32Array(dim[0] * dim[1] * dim[2] + 1);
    const cellIdx = new Int32Array(m);
    for (let j = 0; j < m; j++) {
        const k = cellOf(other[3 * j], 0) + dim[0] * (cellOf(other[3 * j + 1], 1) + dim[1] * cellOf(other[3 * j + 2], 2));
        cellIdx[j] = k;
        start[k + 1]++;
    }
    for (let k = 0; k < start.length - 1; k++) start[k + 1] += start[k];
    const fill = start.slice(0, -1), order = new Int32Array(m);
    for (let j = 0; j < m; j++) order[fill[cellIdx[j]]++] = j;
    const cap2 = cap * cap;
    for (let i = 0; i < n; i++) {
        const x = pos[3 * i], y = pos[3 * i + 1], z = pos[3 * i + 2];
        const ci = cellOf(x, 0), cj = cellOf(y, 1), ck = cellOf(z, 2);
        let best = cap2;
        for (let kk = Math.max(ck - 1, 0); kk <= Math.min(ck + 1, dim[2] - 1); kk++)
            for (let jj = Math.max(cj - 1, 0); jj <= Math.min(cj + 1, dim[1] - 1); jj++)
                for (let ii = Math.max(ci - 1, 0); ii <= Math.min(ci + 1, dim[0] - 1); ii++) {
                    const k = ii + dim[0] * (jj + dim[1] * kk);
                    for (let s = start[k]; s < start[k + 1]; s++) {
                        const j = order[s];
                        const dx = other[3 * j] - x, dy = other[3 * j + 1] - y, dz = other[3 * j + 2] - z;
                        const q = dx * dx + dy * dy + dz * dz;
                        if (q < best) best = q;
                    }
                }
        d[i] = Math.sqrt(best);
    }
    return d;
}

function view_colour_distance(d, cap) {
    const col = new Float32Array(d.length * 3);
    for (let i = 0; i < d.length; i++) view_ramp(d[i] / cap, col, 3 * i);
    return col;
}

function view_colour_diffuse(geo) {
    const kind = geo.getAttribute('kind');
    const n = geo.getAttribute('position').count;
    const col = new Float32Array(n * 3);
    for (let i = 0; i < n; i++) col.set(DIFFUSE_COLOURS[kind ? kind.getX(i) : 0] || DIFFUSE_COLOURS[0], 3 * i);
    return col;
}

// ---- the page ----------------------------------------------------------------------------
let views = [], frames = [], renderer, camera, controls, shown = null, wanted = 0, playing = false;

function view_set_geometry(obj, geo) {
    obj.geometry.dispose();
    obj.geometry = geo || new THREE.BufferGeometry();
}

// Colours every view's particles for the current mode; distance needs both frames loaded.
function view_colour(loaded) {
    state.distance = null;
    const cap = views[0].dom ? views[0].dom.dx : 0.1;
    if (state.mode === 'distance' && views.length === 2 && loaded[0].points && loaded[1].points) {
        const pa = loaded[0].points.getAttribute('position').array, pb = loaded[1].points.getAttribute('position').array;
        const d = [view_nearest(pa, pb, cap), view_nearest(pb, pa, cap)];
        d.forEach((di, r) => loaded[r].points.setAttribute('color', new THREE.BufferAttribute(view_colour_distance(di, cap), 3)));
        let sum = 0, far = 0;
        for (const x of d[0]) { sum += x; if (x >= cap) far++; }
        state.distance = { cap, mean: d[0].length ? sum / d[0].length : 0, far };
        return;
    }
    loaded.forEach((l, r) => {
        if (l.points) l.points.setAttribute('color', new THREE.BufferAttribute(view_colour_speed(views[r], l.points), 3));
    });
}

function view_legend() {
    let text;
    if (state.mode === 'distance' && state.distance)
        text = `0<span class="ramp"></span>≥ ${state.distance.cap} m (one cell) to the nearest particle of the other run;` +
               ` left's mean ${state.distance.mean.toPrecision(3)} m, ${state.distance.far} farther than a cell`;
    else
        text = `0<span class="ramp"></span>${views[0].speed_max ? views[0].speed_max.toPrecision(3) + ' m/s' : 'fastest'}` +
               ' speed; diffuse: <b style="color:#fff">spray</b> <b style="color:#d9cc8c">foam</b> <b style="color:#59bfff">bubbles</b>';
    $('legend').innerHTML = text;
    const ramp = $('legend').querySelector('.ramp');
    if (ramp) ramp.style.background = view_ramp_css();
}

function view_info(frame) {
    const info = views[0].log.get(frame);
    state.time = info ? info.t : null;
    state.substeps = info ? info.substeps : null;
    const counts = state.particles.map((n) => n.toLocaleString('en')).join(' | ');
    const t = info ? `t = ${info.t.toFixed(4)} s · ${info.substeps} substep${info.substeps === 1 ? '' : 's'}` : 't not in log.txt';
    $('frameinfo').textContent = `frame ${frame} (${frames.length} frames, ${frames[0]}–${frames[frames.length - 1]}) · ${t} · ${counts} particles`;
}

// Shows frame index i of the first run (and the same frame number of the other); a newer
// request overtakes an older one still loading.
async function view_show(i) {
    wanted = i;
    const frame = frames[i];
    const t0 = performance.now();
    const loaded = await Promise.all(views.map((v, r) => view_load(r, v.run, frame)));
    if (wanted !== i) return;
    const t1 = performance.now();
    view_colour(loaded);
    const t2 = performance.now();
    views.forEach((v, r) => {
        const l = loaded[r];
        view_set_geometry(v.points, l.points);
        view_set_geometry(v.surface, l.surface);
        if (l.diffuse && !l.diffuse.getAttribute('color'))
            l.diffuse.setAttribute('color', new THREE.BufferAttribute(view_colour_diffuse(l.diffuse), 3));
        view_set_geometry(v.diffuse, l.diffuse);
        // geometries stay in the cache: dispose() above only frees GPU copies, which upload again
    });
    state.frame = frame;
    state.particles = loaded.map((l) => (l.points ? l.points.getAttribute('position').count : 0));
    state.surface_triangles = loaded.map((l) => (l.surface && l.surface.index ? l.surface.index.count / 3 : 0));
    state.diffuse = loaded.map((l) => (l.diffuse ? l.diffuse.getAttribute('position').count : 0));
    $('slider').value = String(i);
    view_info(frame);
    view_legend();
    view_render();
    // one pixel read back waits for the GPU, so draw_ms is the draw and not only its queueing
    const px = new Uint8Array(4), gl = renderer.getContext();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
    state.load_ms = Math.round(t1 - t0);
    state.colour_ms = Math.round(t2 - t1);
    state.draw_ms = Math.round(performance.now() - t1);
    shown = i;
    state.ready = true;
    view_report();
}

function view_render() {
    const canvas = renderer.domElement;
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.floor(w * devicePixelRatio) || canvas.height !== Math.floor(h * devicePixelRatio))
        renderer.setSize(w, h, false);
    const n = views.length, vw = Math.floor(w / n);
    camera.aspect = vw / Math.max(h, 1);
    // the start view frames the domain at 3:2; a narrower view (two side by side) zooms out to keep it whole
    camera.zoom = Math.min(1, camera.aspect / 1.5);
    camera.updateProjectionMatrix();
    renderer.setScissorTest(true);
    views.forEach((v, r) => {
        v.points.visible = $('showparticles').checked;
        v.surface.visible = $('showsurface').checked;
        v.diffuse.visible = $('showdiffuse').checked;
        renderer.setViewport(r * vw, 0, vw, h);
        renderer.setScissor(r * vw, 0, vw, h);
        renderer.render(v.scene, camera);
    });
}

// Play at the scene's frame rate, or as fast as frames load when that is slower.
async function view_play() {
    while (playing) {
        const start = performance.now();
        const next = shown === null || shown + 1 >= frames.length ? 0 : shown + 1;
        await view_show(next);
        const rate = (views[0].run.scene && views[0].run.scene.frame_rate) || 30;
        await new Promise((ok) => setTimeout(ok, Math.max(0, 1000 / rate - (performance.now() - start))));
    }
}

function view_toggle_play() {
    playing = !playing;
    $('play').innerHTML = playing ? '&#10074;&#10074;' : '&#9654;';
    if (playing) view_play();
}

function view_camera(v) {
    const dom = v.dom;
    const size = dom ? dom.size : [2, 2, 2];
    const centre = new THREE.Vector3(size[0] / 2, size[1] / 2, size[2] / 2);
    const r = Math.hypot(...size);
    camera = new THREE.PerspectiveCamera(40, 1, r / 200, r * 20);
    camera.position.set(centre.x + 0.9 * r, centre.y + 0.55 * r, centre.z + 1.1 * r);
    controls = new OrbitControls(camera, renderer.domElement);
    controls.target.copy(centre);
    controls.update();
    controls.addEventListener('change', view_render);
}

async function view_main() {
    const res = await fetch('/runs.json');
    if (!res.ok) throw new Error(`/runs.json: ${res.status}`);
    const runs = await res.json();
    views = runs.map(view_make);
    frames = runs[0].particles;
    state.runs = runs.length;
    state.frames = frames.length;
    renderer = new THREE.WebGLRenderer({ canvas: $('canvas'), antialias: false, preserveDrawingBuffer: true });
    renderer.setPixelRatio(devicePixelRatio);
    renderer.setClearColor(0x1d2126);
    view_camera(views[0]);
    runs.forEach((run, r) => { $(`title${r}`).textContent = run.dir + (r === 0 && runs.length === 2 ? ' (left)' : ''); });
    $('title1').hidden = runs.length < 2;
    if (runs.length === 2) $('mode').querySelector('[value=distance]').disabled = false;

    const q = new URLSearchParams(location.search);
    if (q.get('mode') === 'distance' && runs.length === 2) $('mode').value = state.mode = 'distance';
    const slider = $('slider');
    slider.max = String(Math.max(frames.length - 1, 0));
    slider.addEventListener('input', () => view_show(Number(slider.value)));
    $('play').addEventListener('click', view_toggle_play);
    $('mode').addEventListener('change', () => {
        state.mode = $('mode').value;
        if (shown !== null) view_show(shown);
    });
    for (const id of ['showparticles', 'showsurface', 'showdiffuse']) $(id).addEventListener('change', view_render);
    window.addEventListener('resize', view_render);
    window.addEventListener('keydown', (e) => {
        if (e.target.tagName === 'SELECT') return;
        if (e.key === ' ') { e.preventDefault(); view_toggle_play(); }
        if (e.key === 'ArrowRight' && shown !== null) view_show(Math.min(shown + 1, frames.length - 1));
        if (e.key === 'ArrowLeft' && shown !== null) view_show(Math.max(shown - 1, 0));
    });
    const start = frames.indexOf(Number(q.get('frame') ?? frames[0]));
    await view_show(start >= 0 ? start : 0);
}

view_main().catch((e) => view_fail(`make view: ${e.message}`));
