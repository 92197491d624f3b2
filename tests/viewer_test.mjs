// viewer_test.mjs — `make view`'s page in headless Chromium (playwright-core driving /usr/bin/chromium) on small runs.
// flipkit tests/: check_viewer.sh makes the runs and calls it; one PASS/FAIL line per check, then
// "N passed, N failed"; the page's numbers are checked against the runs' own PLY headers and log.txt.
//
// usage: node tests/viewer_test.mjs --modules DIR --chromium PATH --shots DIR --run A --vs B [--big RUN]
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { openSync, readSync, closeSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const opt = {};
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const { chromium } = createRequire(resolve(opt.modules) + '/')('playwright-core');
let passed = 0, failed = 0;
const check = (ok, what) => {
    console.log(`${ok ? 'PASS' : 'FAIL'}: ${what}`);
    ok ? passed++ : failed++;
};

// What the page must report, read from the run itself: a PLY header's vertex count, log.txt's line.
function ply_count(path) {
    const fd = openSync(path, 'r'), buf = Buffer.alloc(512);
    readSync(fd, buf, 0, 512, 0);
    closeSync(fd);
    return Number(/element vertex (\d+)/.exec(buf.toString('latin1'))[1]);
}
const frames_of = (run) => readdirSync(join(run, 'particles')).filter((n) => /^\d{6}\.ply$/.test(n)).length;
const log_line = (run, n) => readFileSync(join(run, 'log.txt'), 'utf8').split('\n')
    .find((l) => l.startsWith(`frame ${String(n).padStart(6, '0')} `));

// The server as `make view` starts it; resolves with its URL once it has printed it.
function serve(runs) {
    const p = spawn('node', ['common/viewer/serve.mjs', '--modules', opt.modules, ...runs], { stdio: ['ignore', 'pipe', 'inherit'] });
    return new Promise((ok, fail) => {
        let out = '';
        p.stdout.on('data', (d) => {
            out += d;
            const m = / at (http:\/\/127\.0\.0\.1:\d+\/) /.exec(out);
            if (m) ok({ url: m[1], stop: () => p.kill() });
        });
        p.on('exit', (code) => fail(new Error(`serve.mjs exited ${code} before printing its URL: ${out}`)));
    });
}

const browser = await chromium.launch({
    executablePath: opt.chromium,
    // root in a container: no sandbox; no GPU here: WebGL on SwiftShader, Chromium's software GL;
    // and no connections of Chromium's own (updates, sync, field trials): the page is all on 127.0.0.1
    args: ['--no-sandbox', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
           '--disable-features=OptimizationHints,MediaRouter,Translate'],
});

// A page with every console error, uncaught exception and failed request collected.
async function open(url) {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('requestfailed', (r) => errors.push(`${r.url()}: ${r.failure().errorText}`));
    page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.url()}: HTTP ${r.status()}`); });
    const t0 = Date.now();
    await page.goto(url);
    await page.waitForFunction(() => JSON.parse(document.getElementById('state').textContent).ready ||
                                     JSON.parse(document.getElementById('state').textContent).errors?.length, null, { timeout: 60000 });
    return { page, errors, ms: Date.now() - t0 };
}
const state = (page) => page.evaluate(() => JSON.parse(document.getElementById('state').textContent));

// Moves the slider as a person would (fill dispatches input) and waits until that frame is shown.
async function slide(page, index, frame) {
    const t0 = Date.now();
    await page.locator('#slider').fill(String(index));
    await page.waitForFunction((f) => JSON.parse(document.getElementById('state').textContent).frame === f, frame, { timeout: 60000 });
    return Date.now() - t0;
}

// The fraction of the canvas's pixels in a screenshot that are not the background: the PNG is
// decoded by the browser itself (a blank page's createImageBitmap), so no image library is needed.
async function drawn_fraction(page, path) {
    const png = await page.locator('#canvas').screenshot({ path });
    const blank = await browser.newPage();
    const frac = await blank.evaluate(async (b64) => {
        const img = await createImageBitmap(await (await fetch(`data:image/png;base64,${b64}`)).blob());
        const c = new OffscreenCanvas(img.width, img.height).getContext('2d');
        c.drawImage(img, 0, 0);
        const d = c.getImageData(0, 0, img.width, img.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4)
            if (Math.abs(d[i] - 0x1d) + Math.abs(d[i + 1] - 0x21) + Math.abs(d[i + 2] - 0x26) > 24) n++;
        return n / (d.length / 4);
    }, png.toString('base64'));
    await blank.close();
    return frac;
}

try {
    // ---- one run -------------------------------------------------------------------------
    const a = await serve([opt.run]);
    const { page, errors } = await open(a.url);
    let s = await state(page);
    const nframes = frames_of(opt.run);
    check(s.ready && s.runs === 1, `the page loads one run (${s.runs} run(s), ready ${s.ready})`);
    check(s.frames === nframes && (await page.textContent('#frameinfo')).includes(`${nframes} frames`),
          `it reports the run's ${nframes} frames (page: ${s.frames}; "${await page.textContent('#frameinfo')}")`);
    const f0 = ply_count(join(opt.run, 'particles/000000.ply'));
    check(s.frame === 0 && s.particles[0] === f0, `frame 0 shows its ${f0} particles (page: ${s.particles[0]})`);
    const frac = await drawn_fraction(page, join(opt.shots, 'one-run.png'));
    check(frac > 0.02, `the canvas is drawn: ${(100 * frac).toFixed(1)}% of its pixels are not background (over 2%)`);
    const n = nframes - 1;
    await slide(page, n, n);
    s = await state(page);
    const want = ply_count(join(opt.run, `particles/${String(n).padStart(6, '0')}.ply`));
    const info = await page.textContent('#frameinfo');
    check(s.particles[0] === want && info.includes(want.toLocaleString('en')) && info.startsWith(`frame ${n} `),
          `the slider moves to frame ${n}, which shows its ${want} particles ("${info}")`);
    const line = log_line(opt.run, n);
    const [, t, sub] = /t=([0-9.]+) substeps=(\d+)/.exec(line);
    check(Math.abs(s.time - Number(t)) < 1e-9 && s.substeps === Number(sub),
          `frame ${n}'s time and substeps are log.txt's: t=${t} substeps=${sub} (page: ${s.time}, ${s.substeps})`);
    const surf = ply_count(join(opt.run, `surface/${String(n).padStart(6, '0')}.ply`));
    check(s.surface_triangles[0] > 0 && surf > 0, `frame ${n}'s surface is drawn: ${s.surface_triangles[0]} triangles`);
    await page.screenshot({ path: join(opt.shots, 'one-run-page.png') });
    check(errors.length === 0, `no console errors, exceptions or failed requests${errors.length ? ': ' + errors.slice(0, 3).join('; ') : ''}`);
    await page.close();
    a.stop();

    // ---- two runs side by side -----------------------------------------------------------
    const b = await serve([opt.run, opt.vs]);
    const two = await open(`${b.url}?mode=distance`);
    s = await state(two.page);
    const vs0 = ply_count(join(opt.vs, 'particles/000000.ply'));
    check(s.runs === 2 && s.particles[0] === f0 && s.particles[1] === vs0,
          `side by side: two runs, ${f0} and ${vs0} particles in frame 0 (page: ${s.particles.join(', ')})`);
    check(s.mode === 'distance' && s.distance && s.distance.mean === 0,
          `the distance mode: frame 0 of both runs is the same seeding, every particle 0 m from the other run's (mean ${s.distance && s.distance.mean})`);
    await slide(two.page, n, n);
    s = await state(two.page);
    check(s.distance && s.distance.mean > 0 && s.distance.mean < s.distance.cap,
          `frame ${n}: the runs have parted, mean distance ${s.distance && s.distance.mean.toPrecision(3)} m (between 0 and a cell, ${s.distance && s.distance.cap} m)`);
    const frac2 = await drawn_fraction(two.page, join(opt.shots, 'side-by-side.png'));
    check(frac2 > 0.02, `side by side, the canvas is drawn: ${(100 * frac2).toFixed(1)}% not background`);
    check(two.errors.length === 0, `side by side: no console errors${two.errors.length ? ': ' + two.errors.slice(0, 3).join('; ') : ''}`);
    await two.page.close();
    b.stop();

    // ---- a big frame: how long one frame takes to load and draw ----------------------------
    if (opt.big) {
        const c = await serve([opt.big]);
        const big = await open(c.url); // frame 0, with the page's own start
        s = await state(big.page);
        const count = ply_count(join(opt.big, 'particles/000000.ply'));
        check(s.particles[0] === count, `the big run's frame 0 shows its ${count} particles`);
        console.log(`NOTE: ${count} particles: page opened and frame 0 drawn in ${big.ms} ms ` +
                    `(the frame: ${s.load_ms} ms fetch and parse, ${s.draw_ms} ms colour and draw)`);
        if (frames_of(opt.big) > 1) {
            const ms = await slide(big.page, 1, 1);
            s = await state(big.page);
            console.log(`NOTE: slider to frame 1 (${s.particles[0]} particles, surface ${s.surface_triangles[0]} triangles): ` +
                        `${ms} ms in all (${s.load_ms} ms fetch and parse, ${s.draw_ms} ms colour and draw)`);
            check(ms < 5000, `a big frame loads and draws in ${ms} ms (a loose bound, 5 s, for a busy machine)`);
        }
        await big.page.close();
        c.stop();
    }
} catch (e) {
    check(false, `the viewer test stopped: ${e.message.split('\n')[0]}`);
} finally {
    await browser.close();
}
console.log(`viewer: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
