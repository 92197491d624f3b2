// serve.mjs — `make view`'s server: the viewer page, three.js, and the PLY frames of one or two runs.
// flipkit common/viewer/: node's own http on 127.0.0.1 and a port the system picks; it serves
// the runs' files as they are on disk (no copy, no conversion) and only the names a run has.
//
// usage: node common/viewer/serve.mjs --modules DIR [--port N] RUN [VS]
//   DIR is where `npm ci` put node_modules (build/viewer/node_modules); RUN and VS are flipsim
//   --out directories. Prints one line with the URL, then serves until stopped.
import { createServer } from 'node:http';
import { createReadStream, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

// One line naming the place and what was expected, then exit 2 (the kit's bad-input status).
function serve_die(msg) {
    process.stderr.write(`make view: ${msg}\n`);
    process.exit(2);
}

function serve_args(argv) {
    const a = { modules: null, port: 0, runs: [] };
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === '--modules') a.modules = argv[++i];
        else if (argv[i] === '--port') a.port = Number(argv[++i]);
        else if (argv[i].startsWith('--')) serve_die(`unknown option ${argv[i]} (expected --modules DIR, --port N, RUN [VS])`);
        else a.runs.push(argv[i]);
    }
    if (!a.modules) serve_die('--modules DIR is missing (the node_modules that npm ci made)');
    if (a.runs.length < 1 || a.runs.length > 2)
        serve_die(`expected RUN and at most one VS, got ${a.runs.length} directories`);
    if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535)
        serve_die(`--port: expected an integer in 0..65535`);
    try {
        statSync(join(a.modules, 'three', 'build', 'three.module.js'));
    } catch {
        serve_die(`${a.modules}: no three/build/three.module.js in it (run npm ci there)`);
    }
    return a;
}

// A run is a flipsim --out directory: it must have particles/ with at least one frame.
function serve_check_run(dir, which) {
    let names;
    try {
        names = readdirSync(join(dir, 'particles'));
    } catch {
        serve_die(`${which}=${dir}: no particles/ in it (expected a flipsim --out directory: run \`make run\` first, or name one, e.g. RUN=out/ball_drop)`);
    }
    if (!names.some((n) => /^\d{6}\.ply$/.test(n)))
        serve_die(`${which}=${dir}: particles/ has no NNNNNN.ply frame (expected a flipsim --out directory)`);
}

// Frame numbers of one kind, read again on every request so a run still going shows its new frames.
function serve_frames(dir, kind) {
    try {
        return readdirSync(join(dir, kind))
            .filter((n) => /^\d{6}\.ply$/.test(n))
            .map((n) => Number(n.slice(0, 6)))
            .sort((x, y) => x - y);
    } catch {
        return [];
    }
}

function serve_text(dir, name) {
    try {
        return readFileSync(join(dir, name), 'utf8');
    } catch {
        return null;
    }
}

function serve_run_info(dir) {
    const scene = serve_text(dir, 'scene.json');
    let parsed = null;
    try {
        parsed = scene ? JSON.parse(scene) : null;
    } catch {
        parsed = null; // a half-written file is not an error of the viewer's: it draws no solids
    }
    return {
        dir,
        name: basename(resolve(dir)),
        particles: serve_frames(dir, 'particles'),
        surface: serve_frames(dir, 'surface'),
        diffuse: serve_frames(dir, 'diffuse'),
        log: serve_text(dir, 'log.txt') ?? '',
        scene: parsed,
    };
}

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
                '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
                '.ply': 'application/octet-stream', '.json': 'application/json' };

function serve_file(res, path) {
    let st;
    try {
        st = statSync(path);
    } catch {
        st = null;
    }
    if (!st || !st.isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found\n');
        return;
    }
    const ext = path.slice(path.lastIndexOf('.'));
    res.writeHead(200, { 'content-type': types[ext] ?? 'application/octet-stream',
                         'content-length': st.size, 'cache-control': 'no-cache' });
    createReadStream(path).pipe(res);
}

// Only these names are served: the page's own files, three's module tree, and a run's frames.
// Anything else (.., absolute paths, other files in a run) is a 404.
function serve_route(a, req, res) {
    const url = new URL(req.url, 'http://127.0.0.1');
    const p = decodeURIComponent(url.pathname);
    let m;
    if (p === '/' || p === '/index.html') return serve_file(res, join(here, 'index.html'));
    if (p === '/viewer.js' || p === '/viewer.css') return serve_file(res, join(here, p.slice(1)));
    if (p === '/runs.json') {
        const body = JSON.stringify(a.runs.map(serve_run_info));
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
        res.end(body);
        return;
    }
    if ((m = /^\/three\/((?:build|examples\/jsm)\/[A-Za-z0-9_.\-/]+\.js)$/.exec(p)) && !p.includes('..'))
        return serve_file(res, join(a.modules, 'three', m[1]));
    if ((m = /^\/run\/([01])\/(particles|surface|diffuse)\/(\d{6}\.ply)$/.exec(p)) && a.runs[m[1]])
        return serve_file(res, join(a.runs[m[1]], m[2], m[3]));
    if (p === '/favicon.ico') {
        res.writeHead(204);
        res.end();
        return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
}

const args = serve_args(process.argv.slice(2));
args.runs.forEach((d, i) => serve_check_run(d, i ? 'VS' : 'RUN'));
const server = createServer((req, res) => serve_route(args, req, res));
server.on('error', (e) => serve_die(`cannot listen on 127.0.0.1:${args.port}: ${e.message}`));
// Loopback only: the page shows a student's files, and nobody else's machine needs them.
server.listen(args.port, '127.0.0.1', () => {
    const url = `http://127.0.0.1:${server.address().port}/`;
    const what = args.runs.length === 2 ? `${args.runs[0]} beside ${args.runs[1]}` : args.runs[0];
    process.stdout.write(`make view: ${what} at ${url} (Ctrl-C stops it)\n`);
});
