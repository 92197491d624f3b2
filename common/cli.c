/* cli.c — flipsim's command line: parse options, load the scene, run frames, write files.
 * flipkit common/: the only place that prints. Errors are one line naming the file or the
 * option and what was expected; the exit statuses are listed in cli.h and in --help. */
#include "cli.h"
#include "rundir.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "output.h"
#include "ply.h"
#include "sim.h"

enum { MAX_SETS = 64 };

typedef struct {
    const char *scene_path;
    const char *out;             /* NULL: out/<scene name> */
    const char *track;           /* NULL: reference when linked, else student */
    const char *use_reference;
    const char *resume;
    const char *device;          /* cpu | opencl | auto; NULL: auto */
    const char *cl_device;       /* "P:D" or NULL */
    const char *print;           /* --print KEY: print a value of the run, then exit */
    int list_devices;
    const char *sets[MAX_SETS];
    int nsets;
    int frames;                  /* -1: the scene's */
    int checkpoint_every;
    int quiet;
    int sync_writes;             /* write each frame before simulating the next */
    OutputSlice slices[OUTPUT_MAX_SLICES];
    int nslices;
} Options;

typedef struct {
    const Options *opt;
    Scene scene;
    Sim sim;
    char out[1024];
    int lock_fd;                 /* OUT/.lock, held for the run's life (rundir.h) */
    FILE *log;
    Output output;               /* surface, USD, previews, slices */
    const CliDevices *devices;   /* NULL: this build runs only the C stages */
    int progress;                /* print a progress line (stderr is a terminal) */
    int first_frame;             /* the frame the run started from */
    double elapsed;              /* seconds in cli_run_frames */
    int capped_frames;           /* frames where a solve stopped at pressure.iterations */
    double capped_residual;      /* the last such frame's residual */
} Run;

/* The names the student track does not have, in the full kit's --help (the student kit's
 * --help says it per name): check-handout holds the handout's list against this line. */
static void cli_usage_fallbacks(FILE *f, const Track *student)
{
    fprintf(f, "  (the student track has only its jacobi and the given gauss_seidel and sor; there");
    for (const char *const *n = scene_solver_names; *n; n++)
        if (strncmp(sim_solver_variant(student, *n), "not in this track", 17) == 0)
            fprintf(f, " %s", *n);
    fprintf(f, " fall back to its jacobi)\n");
}

/* Each pressure.solver name and what it runs here: on the C stages of the track a run uses by
 * default, and on the OpenCL pipeline when this build has one. */
static void cli_usage_solvers(FILE *f, const Track *student, const Track *reference,
                              const CliDevices *devices)
{
    const Track *t = reference ? reference : student;
    fprintf(f, "pressure.solver, and what each runs (the log's start line names it; "
               "use_gauss_seidel = the given sor):\n");
    for (const char *const *n = scene_solver_names; *n; n++) {
        fprintf(f, "  %-13s %s track: %s\n", *n, t->name, sim_solver_variant(t, *n));
        if (devices && devices->solver_variant)
            fprintf(f, "  %-13s --device opencl: %s\n", "", devices->solver_variant(*n));
    }
    if (reference)
        cli_usage_fallbacks(f, student);
    fputc('\n', f);
}

static void cli_usage(FILE *f, const Track *student, const Track *reference, const CliDevices *devices)
{
    int with_reference = reference != NULL, with_devices = devices != NULL;
    fprintf(f,
        "usage: flipsim [options] SCENE.json\n"
        "       flipsim [options] --resume OUT/state/000010.state\n"
        "Runs a PIC/FLIP liquid simulation and writes OUT/particles/000000.ply ... (frame N is\n"
        "the state at time N/frame_rate; frame 0 is the initial state) and OUT/log.txt.\n\n"
        "options (default in brackets):\n"
        "  --frames N              last frame to simulate [the scene's \"frames\"]\n"
        "  --out DIR               output directory, one run's at a time: a second run into\n"
        "                          it exits 2, naming the first; a new run there first removes\n"
        "                          the frames, checkpoints, scene.usda and preview.mp4 an earlier\n"
        "                          run left (a --resume run only those after its frame); other\n"
        "                          files stay [out/<scene name>]\n"
        "  --track student|reference\n"
        "                          whose stages run [%s]\n"
        "  --use-reference=LIST    run these stages (comma-separated, or \"all\") from the\n"
        "                          reference, the rest from --track [none]%s\n"
        "  --set KEY.PATH=VALUE    override a scene value, VALUE in JSON; repeatable\n"
        "                          (e.g. --set grid.resolution=[64,64,64] --set use_gauss_seidel=true)\n"
        "  --resume FILE           continue from a state file (it holds the scene) [off]\n"
        "  --checkpoint-every K    write OUT/state/NNNNNN.state every K frames [0 = never]\n"
        "  --slice AXIS=INDEX      also write OUT/slice-AXISINDEX/NNNNNN.png each frame: the\n"
        "                          cells with that x, y or z index, as cell types, pressure and\n"
        "                          the divergence the pressure solve was given (e.g. z=16);\n"
        "                          repeatable, up to %d; runs the C stages [none]\n"
        "  --device cpu|opencl|auto\n"
        "                          where the reference track runs: its C stages on this CPU, or\n"
        "                          the OpenCL pipeline (whole substeps on the device); auto =\n"
        "                          OpenCL when a device opens [%s]\n"
        "  --cl-device P:D         OpenCL platform P, device D (see --list-devices; or set\n"
        "                          FLIPKIT_CL_DEVICE) [the first device found]\n"
        "  --list-devices          list the OpenCL platforms and devices, then exit\n"
        "  --print KEY             print one value of the run and exit: out (the output\n"
        "                          directory), last_frame (--frames or the scene's), or a\n"
        "                          scene key after --set (e.g. frame_rate)\n"
        "  --sync-writes           write each frame's files before simulating the next; by\n"
        "                          default the reference track's frames are written on a\n"
        "                          thread of their own while the next frame simulates (the\n"
        "                          same bytes); the student track always writes first, so a\n"
        "                          stage that crashes keeps every frame before it [off]\n"
        "  --quiet                 print only errors [off]\n"
        "  --help                  this text\n\n"
        "exit status: 0 done; 1 output could not be written; 2 bad option, scene or state\n"
        "file, or --out in use by another run; 3 a stage produced NaN/Inf (the frames already\n"
        "written are kept); 4 out of memory (a scene that needs more than this machine has is\n"
        "refused before it starts, with the figure).\n"
        "Besides the particles, the scene's output.* keys turn on OUT/surface/NNNNNN.ply (a\n"
        "closed liquid surface), OUT/scene.usda (one USD stage, plays in real time) and\n"
        "OUT/preview/NNNNNN.png (`make movie` joins them into OUT/preview.mp4). On\n"
        "--device opencl both surfaces (output.surface, output.surface_anisotropic) are\n"
        "computed on the device and polygonised on the host; else in C.\n\n",
        with_reference ? "reference" : "student",
        with_reference ? "" : "\n                          (not in this build: it has no reference stages)",
        OUTPUT_MAX_SLICES, with_devices ? "auto" : "cpu; this build has no OpenCL pipeline");
    cli_usage_solvers(f, student, reference, devices);
    fprintf(f, "scene keys (scenes/README.md has the full schema):\n");
    scene_print_schema(f);
}

static int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("flipsim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_INPUT;
}

static int cli_parse_count(const char *opt, const char *text, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 0 || v > SIM_MAX_FRAME)
        return cli_error("%s: expected a whole number from 0 to %d, got \"%s\"", opt, SIM_MAX_FRAME, text);
    *out = (int)v;
    return 0;
}

static int cli_parse_slice(Options *o, const char *text)
{
    char err[512];
    if (o->nslices == OUTPUT_MAX_SLICES)
        return cli_error("--slice: at most %d slices per run", OUTPUT_MAX_SLICES);
    if (output_parse_slice(text, &o->slices[o->nslices], err, sizeof err) != 0)
        return cli_error("%s", err);
    o->nslices++;
    return 0;
}

static int cli_parse(int argc, char **argv, Options *o, const Track *student, const Track *reference,
                     const CliDevices *devices)
{
    enum { O_FRAMES = 256, O_OUT, O_TRACK, O_USEREF, O_SET, O_RESUME, O_CKPT, O_QUIET, O_HELP,
           O_DEVICE, O_CLDEVICE, O_LIST, O_SLICE, O_PRINT, O_SYNC };
    static const struct option longs[] = {
        { "frames", required_argument, NULL, O_FRAMES },
        { "out", required_argument, NULL, O_OUT },
        { "track", required_argument, NULL, O_TRACK },
        { "use-reference", required_argument, NULL, O_USEREF },
        { "set", required_argument, NULL, O_SET },
        { "resume", required_argument, NULL, O_RESUME },
        { "checkpoint-every", required_argument, NULL, O_CKPT },
        { "quiet", no_argument, NULL, O_QUIET },
        { "device", required_argument, NULL, O_DEVICE },
        { "cl-device", required_argument, NULL, O_CLDEVICE },
        { "list-devices", no_argument, NULL, O_LIST },
        { "slice", required_argument, NULL, O_SLICE },
        { "print", required_argument, NULL, O_PRINT },
        { "sync-writes", no_argument, NULL, O_SYNC },
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    *o = (Options){ .frames = -1 };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case O_FRAMES: rc = cli_parse_count("--frames", optarg, &o->frames); break;
        case O_OUT: o->out = optarg; break;
        case O_TRACK: o->track = optarg; break;
        case O_USEREF: o->use_reference = optarg; break;
        case O_SET:
            if (o->nsets == MAX_SETS)
                return cli_error("--set: at most %d overrides", MAX_SETS);
            o->sets[o->nsets++] = optarg;
            break;
        case O_RESUME: o->resume = optarg; break;
        case O_CKPT: rc = cli_parse_count("--checkpoint-every", optarg, &o->checkpoint_every); break;
        case O_QUIET: o->quiet = 1; break;
        case O_DEVICE:
            if (strcmp(optarg, "cpu") && strcmp(optarg, "opencl") && strcmp(optarg, "auto"))
                return cli_error("--device %s: expected cpu, opencl or auto", optarg);
            o->device = optarg;
            break;
        case O_CLDEVICE: o->cl_device = optarg; break;
        case O_LIST: o->list_devices = 1; break;
        case O_SLICE: rc = cli_parse_slice(o, optarg); break;
        case O_PRINT: o->print = optarg; break;
        case O_SYNC: o->sync_writes = 1; break;
        case 'h':
        case O_HELP: cli_usage(stdout, student, reference, devices); exit(EXIT_OK);
        case ':': return cli_error("%s: needs a value (see --help)", argv[optind - 1]);
        default: return cli_error("%s: unknown option (see --help)", argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (o->list_devices)
        return 0;
    if (optind < argc)
        o->scene_path = argv[optind++];
    if (optind < argc)
        return cli_error("%s: only one scene per run (see --help)", argv[optind]);
    if (!o->scene_path && !o->resume)
        return cli_error("no scene given: flipsim [options] SCENE.json (see --help)");
    if (o->scene_path && o->resume)
        return cli_error("give either SCENE.json or --resume FILE, not both: the state file "
                         "holds its scene");
    if (o->resume && o->nsets)
        return cli_error("--set cannot change a resumed run: it continues the saved scene");
    if (o->nslices && o->device && strcmp(o->device, "opencl") == 0)
        return cli_error("--slice draws the grid the C stages leave on the host; it cannot run "
                         "with --device opencl (use --device cpu or auto)");
    return 0;
}

/* ---- set-up ------------------------------------------------------------------------------ */

static int cli_load_scene(Run *r)
{
    const Options *o = r->opt;
    char err[1024];
    int rc;
    if (o->resume) {
        char *json = checkpoint_scene(o->resume, err, sizeof err);
        if (!json)
            return cli_error("%s", err);
        rc = scene_load_text(json, o->resume, NULL, 0, &r->scene, err, sizeof err);
        free(json);
    } else {
        rc = scene_load(o->scene_path, o->sets, o->nsets, &r->scene, err, sizeof err);
    }
    return rc ? cli_error("%s", err) : 0;
}

static int cli_pick_track(const Options *o, const Track *student, const Track *reference,
                          Track *out)
{
    const char *name = o->track ? o->track : reference ? "reference" : "student";
    const Track *base;
    if (strcmp(name, "student") == 0)
        base = student;
    else if (strcmp(name, "reference") == 0 && reference)
        base = reference;
    else if (strcmp(name, "reference") == 0)
        return cli_error("--track reference: this build has no reference stages (the student "
                         "kit ships without them); use --track student");
    else
        return cli_error("--track %s: expected student or reference", name);
    *out = *base;
    if (!o->use_reference)
        return 0;
    if (!reference)
        return cli_error("--use-reference=%s: not available in this build (the student kit "
                         "ships without reference stages; ask your instructor)", o->use_reference);
    char err[512];
    if (track_mix(out, base, reference, o->use_reference, err, sizeof err) != 0)
        return cli_error("%s", err);
    return 0;
}

static const char *cli_device_name(const Run *r)
{
    return r->sim.backend->name;
}

/* ---- output ------------------------------------------------------------------------------ */

static void cli_log(Run *r, const char *fmt, ...)
{
    if (!r->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->log, fmt, ap);
    va_end(ap);
    fflush(r->log);
}

static int cli_write_frame(Run *r)
{
    const Sim *s = &r->sim;
    char path[1200], err[1300];
    if (output_frame(&r->output, &r->sim, err, sizeof err) != 0) {
        fprintf(stderr, "flipsim: %s\n", err);
        return EXIT_IO;
    }
    int every = r->opt->checkpoint_every;
    if (every > 0 && s->frame % every == 0 && s->frame != r->first_frame) {
        /* the frame's files first: a resume from the checkpoint reads them back */
        snprintf(path, sizeof path, "%s/state/%06d.state", r->out, s->frame);
        if (output_flush(&r->output, err, sizeof err) != 0 ||
            checkpoint_save(s, path, err, sizeof err) != 0) {
            fprintf(stderr, "flipsim: %s\n", err);
            return EXIT_IO;
        }
    }
    return EXIT_OK;
}

static void cli_progress(Run *r, int last, double elapsed)
{
    int done = r->sim.frame - r->first_frame, total = last - r->first_frame;
    double per = done > 0 ? elapsed / done : 0.0;
    if (r->progress)
        fprintf(stderr, "\rflipsim: frame %d/%d  substeps %d  %.2f s/frame  ETA %.0f s   ",
                r->sim.frame, last, r->sim.stats.frame_substeps, per, per * (total - done));
}

/* A solve that stopped at pressure.iterations: for jacobi this is what a capped Jacobi does on
 * any grid past a few cells (its error shrinks by about 1 - c/n^2 a sweep), so the log says
 * "capped", not an alarm; any other solver that runs out of iterations is NOT-CONVERGED. */
static bool cli_capped_jacobi(const Sim *s)
{
    return strcmp(s->solver_name, "jacobi") == 0;
}

static void cli_log_frame(Run *r, double seconds)
{
    const Sim *s = &r->sim;
    const SolveResult *sr = &s->stats.last_solve;
    const char *flag = !s->stats.unconverged_solves ? ""
                       : cli_capped_jacobi(s)      ? " capped"
                                                   : " NOT-CONVERGED";
    if (s->stats.unconverged_solves) {
        r->capped_frames++;
        r->capped_residual = sr->residual;
    }
    cli_log(r, "frame %06d t=%.6f substeps=%d particles=%zu solver=%s iterations=%d "
               "residual=%.3e%s seconds=%.3f\n",
            s->frame, s->time, s->stats.frame_substeps, s->particles.count, s->solver_name,
            sr->iterations, sr->residual, flag, seconds);
}

/* Once at the end: how often the solve ran out of iterations, and what that means. */
static void cli_summarise_capped(const Run *r, int frames)
{
    const Sim *s = &r->sim;
    if (r->capped_frames == 0)
        return;
    if (cli_capped_jacobi(s))
        printf("  jacobi used all pressure.iterations=%d before pressure.tolerance=%g in %d of %d "
               "frames (last residual %.3e): expected of Jacobi, which needs O(n^2) sweeps; the "
               "projection is approximate, not wrong (handout: \"The pressure solve and the "
               "convergence lab\")\n",
               r->scene.pressure.iterations, r->scene.pressure.tolerance, r->capped_frames,
               frames, r->capped_residual);
    else
        printf("  NOT-CONVERGED: %s used all pressure.iterations=%d before pressure.tolerance=%g "
               "in %d of %d frames (last residual %.3e)\n", s->solver_name,
               r->scene.pressure.iterations, r->scene.pressure.tolerance, r->capped_frames, frames,
               r->capped_residual);
}

static void cli_summary(Run *r, double elapsed)
{
    const Sim *s = &r->sim;
    int frames = s->frame - r->first_frame;
    long substeps = s->stats.substeps;
    printf("flipsim: %s, %s track on %s, %s solver (%s): frames %d-%d, %zu particles, %ld "
           "substeps, %.2f s (%.3f s/frame)\n",
           r->scene.name, s->track.name, cli_device_name(r), s->solver_name, s->solver_variant,
           r->first_frame, s->frame,
           s->particles.count, substeps, elapsed, frames > 0 ? elapsed / frames : 0.0);
    cli_summarise_capped(r, frames);
    double total = 0.0;
    for (int q = 0; q < PHASE_COUNT; q++)
        total += s->stats.seconds[q];
    printf("  %-12s %10s %12s %7s\n", "stage", "seconds", "ms/substep", "share");
    for (int q = 0; q < PHASE_COUNT; q++)
        printf("  %-12s %10.3f %12.3f %6.1f%%\n", sim_phase_names[q], s->stats.seconds[q],
               substeps ? 1e3 * s->stats.seconds[q] / (double)substeps : 0.0,
               total > 0.0 ? 100.0 * s->stats.seconds[q] / total : 0.0);
    if (s->backend && s->backend->times_phases)
        printf("  (a stage's seconds: its kernels' span on the device's clock; the stages run "
               "while the host launches the next, so the run's time is not their sum)\n");
    const Scene *sc = &r->scene;
    bool wrote = false;
    for (int k = 0; k < OUTPUT_KINDS; k++)
        wrote |= r->output.on[k];
    if (wrote)
        printf("  %-12s %10s %12s\n", "writing", "seconds", "ms/frame");
    int written = r->output.frames_written;
    for (int k = 0; k < OUTPUT_KINDS && wrote; k++) {
        if (!r->output.on[k])
            continue;
        printf("  %-12s %10.3f", output_kind_names[k], r->output.seconds[k]);
        if (written > 0)
            printf(" %12.3f\n", 1e3 * r->output.seconds[k] / written);
        else
            printf(" %12s\n", "-");
    }
    /* What the run wrote, as a list ("particles/, surface/, scene.usda"). */
    if (r->output.threaded && wrote)
        printf("  (written on their own thread while the next frame ran; the simulation "
               "waited %.3f s for it)\n", r->output.waited);
    if (sc->output.diffuse) {
        const DiffuseTally *d = &r->output.diffuse_end;
        const size_t *by = d->by_type;
        printf("  diffuse: %zu at the end (spray %zu, foam %zu, bubble %zu), %zu seeded", d->alive,
               by[DIFFUSE_SPRAY], by[DIFFUSE_FOAM], by[DIFFUSE_BUBBLE], d->seeded);
        if (d->dropped)
            printf("; the limit output.diffuse_max = %zu kept %zu from being seeded", d->limit,
                   d->dropped);
        printf("\n");
    }
    const char *items[8];
    int n = 0;
    if (sc->output.particles) items[n++] = "particles/";
    if (sc->output.surface) items[n++] = "surface/";
    if (r->output.on[OUTPUT_USD]) items[n++] = "scene.usda";
    if (sc->output.preview) items[n++] = "preview/";
    if (sc->output.bricks) items[n++] = "brick/ brickcolor/ bricktexture/";
    if (sc->output.diffuse) items[n++] = "diffuse/";
    if (sc->output.surface_anisotropic) items[n++] = "anisotropic/";
    if (r->opt->nslices) items[n++] = "slice-*/";
    printf("  output: %s/", r->out);
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? ", " : " ", items[i]);
    printf("\n");
}

static double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The run's own checks (watch.c) leave at most one warning of each kind per run. */
static void cli_warn_watch(Run *r)
{
    SimWatch *w = &r->sim.watch;
    if (!w->warning_new)
        return;
    w->warning_new = false;
    if (r->progress)
        fputc('\n', stderr);
    fprintf(stderr, "flipsim: %s: warning: frame %d: %s\n", r->scene.name, r->sim.frame, w->warning);
    cli_log(r, "warning: frame %d: %s\n", r->sim.frame, w->warning);
}

/* Every particle's position and velocity summed: unchanged over a frame means nothing moved. */
static double cli_particle_sum(const Particles *ps)
{
    double sum = 0.0;
    for (size_t p = 0; p < ps->count; p++) {
        Vec3 x = ps->pos[p], v = ps->vel[p];
        sum += (double)x.x + x.y + x.z + 3.0 * ((double)v.x + v.y + v.z);
    }
    return sum;
}

/* The untouched stubs leave every particle as it was (stages.h's "not done" states of p2g,
 * g2p and advect), and a run of them otherwise reports success and a still ball: say so once,
 * after the first frame, when the run started from set-up with gravity on. */
static void cli_note_still(Run *r, double before)
{
    Vec3 g = r->scene.gravity;
    if (r->opt->quiet || r->opt->resume || r->sim.frame != r->first_frame + 1 ||
        r->sim.particles.count == 0 || (g.x == 0.0f && g.y == 0.0f && g.z == 0.0f) ||
        cli_particle_sum(&r->sim.particles) != before)
        return;
    if (r->progress)
        fputc('\n', stderr);
    fprintf(stderr, "flipsim: note: no particle moved or sped up in frame %d: the %s track's p2g, "
            "g2p or advect is still a stub (their \"not done\" state leaves the particles as they "
            "are), so nothing will move in this run\n", r->sim.frame, r->sim.track.name);
}

static int cli_run_frames(Run *r, int last)
{
    double start = cli_now(), before = cli_particle_sum(&r->sim.particles);
    int rc = EXIT_OK;
    while (r->sim.frame < last && rc == EXIT_OK) {
        double t0 = cli_now();
        if (sim_advance_frame(&r->sim) != 0) {
            if (r->progress)
                fputc('\n', stderr);
            fprintf(stderr, "flipsim: %s: frame %d: %s; frames up to %06d are kept in %s/particles\n",
                    r->scene.name, r->sim.frame + 1, r->sim.error.message, r->sim.frame, r->out);
            cli_log(r, "error: frame %d: %s\n", r->sim.frame + 1, r->sim.error.message);
            return r->sim.error.status == RUN_OUT_OF_MEMORY ? EXIT_MEMORY : EXIT_BLOWUP;
        }
        cli_warn_watch(r);
        cli_note_still(r, before);
        rc = cli_write_frame(r);
        cli_log_frame(r, cli_now() - t0);
        cli_progress(r, last, cli_now() - start);
    }
    if (r->progress)
        fputc('\n', stderr);
    r->elapsed = cli_now() - start;
    return rc;
}

/* --device: the OpenCL pipeline runs the reference's own stages, so it is for the plain
 * reference track; auto falls back to the C stages (saying why) where an explicit opencl
 * is an error. */
static int cli_pick_device(Run *r)
{
    const Options *o = r->opt;
    const char *want = o->device ? o->device : "auto";
    int must = strcmp(want, "opencl") == 0;
    if (strcmp(want, "cpu") == 0)
        return 0;
    /* A slice is drawn from the host's grid, which the device does not hand back (cli_parse
     * has refused --device opencl with --slice). */
    if (o->nslices) {
        if (!o->quiet && r->devices)
            fprintf(stderr, "flipsim: note: --slice draws the grid the C stages leave on the host; "
                    "running the C stages\n");
        return 0;
    }
    if (!r->devices)
        return must ? cli_error("--device opencl: this build has no OpenCL pipeline (the student "
                                "kit runs your stages in C)") : 0;
    if (strcmp(r->sim.track.name, "reference") != 0)
        return must ? cli_error("--device opencl runs the reference pipeline; it needs --track "
                                "reference without --use-reference (this run: %s track)",
                                r->sim.track.name) : 0;
    char err[8192];
    SimBackend *d = r->devices->open(o->cl_device, err, sizeof err);
    if (!d && must)
        return cli_error("--device opencl: %s", err);
    if (!d) {
        if (!o->quiet)
            fprintf(stderr, "flipsim: note: no OpenCL device (%s); running the C reference\n",
                    strtok(err, "\n"));
        return 0;
    }
    if (sim_use_backend(&r->sim, d) != 0)
        return cli_error("--device opencl: %s", r->sim.error.message);
    return 0;
}

static void cli_name_out(Run *r)
{
    const Options *o = r->opt;
    if (o->out)
        snprintf(r->out, sizeof r->out, "%s", o->out);
    else
        snprintf(r->out, sizeof r->out, "out/%s", r->scene.name);
}

/* --print KEY: for scripts such as `make movie`, which need the run's directory and frame
 * rate without parsing JSON themselves. */
static int cli_print_value(Run *r)
{
    char value[4096];
    cli_name_out(r);
    if (strcmp(r->opt->print, "out") == 0)
        snprintf(value, sizeof value, "%s", r->out);
    else if (strcmp(r->opt->print, "last_frame") == 0)
        snprintf(value, sizeof value, "%d", r->opt->frames >= 0 ? r->opt->frames : r->scene.frames);
    else if (scene_value_text(&r->scene, r->opt->print, value, sizeof value) != 0)
        return cli_error("--print %s: %s has no such key (see the scene keys in --help)",
                         r->opt->print, r->scene.path);
    printf("%s\n", value);
    return EXIT_OK;
}

/* Before anything is created or opened for writing: bad input must not cost an earlier
 * run's log. */
static int cli_check_slices(const Run *r)
{
    char err[512];
    for (int i = 0; i < r->opt->nslices; i++)
        if (output_check_slice(&r->opt->slices[i], r->scene.resolution, err, sizeof err) != 0)
            return cli_error("%s", err);
    return 0;
}

/* Memory this process may still have: MemAvailable (free and reclaimable), else the RAM
 * sysinfo reports (where /proc is not readable, as in the grader's sandbox), and never more
 * than RLIMIT_AS allows. 0 when nothing can be read. */
static size_t cli_memory_available(const char **what)
{
    size_t avail = 0;
    *what = "available";
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kib;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            avail = (size_t)kib * 1024;
    if (f)
        fclose(f);
    struct sysinfo si;
    if (!avail && sysinfo(&si) == 0)
        avail = (size_t)si.totalram * si.mem_unit, *what = "in all";
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (!avail || rl.rlim_cur < avail))
        avail = (size_t)rl.rlim_cur, *what = "under its address-space limit";
    return avail;
}

/* Before allocating: a scene that cannot fit is refused now, with the figure, not minutes
 * later by the allocator. */
static int cli_check_memory(const Run *r)
{
    size_t particles, need = sim_memory_need(&r->scene, &particles);
    const char *what;
    size_t avail = cli_memory_available(&what);
    if (!avail || need <= avail)
        return 0;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    fprintf(stderr, "flipsim: %s: grid %dx%dx%d and about %zu particles need at least %.1f GiB; "
            "this machine has %.1f GiB %s\n", r->scene.path, r->scene.resolution[0],
            r->scene.resolution[1], r->scene.resolution[2], particles, (double)need / gib,
            (double)avail / gib, what);
    return EXIT_MEMORY;
}

/* OUT is this run's alone, and holds nothing of an earlier run's past keep_frame. */
static int cli_claim_out(Run *r)
{
    char err[MESSAGE_MAX];
    r->lock_fd = rundir_claim(r->out, err, sizeof err);
    if (r->lock_fd == -2)
        return cli_error("%s", err);
    if (r->lock_fd < 0) {
        fprintf(stderr, "flipsim: %s\n", err);
        return EXIT_IO;
    }
    return 0;
}

static int cli_clear_out(Run *r, int keep_frame)
{
    char err[MESSAGE_MAX];
    if (rundir_clear(r->out, keep_frame, err, sizeof err) < 0) {
        fprintf(stderr, "flipsim: %s\n", err);
        return EXIT_IO;
    }
    return 0;
}

/* The stepping the run takes, when the scene asks for production stepping: in the log when the
 * track takes it, and a note when it does not (the student track keeps its advect stage). */
static void cli_log_stepping(Run *r, const Options *o)
{
    const SimStepping *st = &r->sim.step;
    if (st->order)
        cli_log(r, "stepping: production, RK%d through the grid's velocity at cfl %g, "
                "extrapolating %d layers\n", st->order, (double)st->cfl, st->layers);
    else if (r->scene.production.order && !o->quiet)
        fprintf(stderr, "flipsim: note: the scene's production stepping (production.integrator) "
                "is the reference track's; the %s track runs its advect stage at cfl %g\n",
                r->sim.track.name, (double)st->cfl);
}

static int cli_start(Run *r, const Track *track)
{
    const Options *o = r->opt;
    char err[MESSAGE_MAX];
    int rc = cli_check_slices(r);
    if (!rc)
        rc = cli_check_memory(r);
    if (rc)
        return rc;
    cli_name_out(r);
    rc = cli_claim_out(r);
    if (rc)
        return rc;
    char sub[1200];
    snprintf(sub, sizeof sub, "%s/particles", r->out);
    if (rundir_mkdirs(sub) != 0 ||
        (o->checkpoint_every > 0 && (snprintf(sub, sizeof sub, "%s/state", r->out), rundir_mkdirs(sub) != 0))) {
        fprintf(stderr, "flipsim: %s: cannot create: %s\n", sub, strerror(errno));
        return EXIT_IO;
    }
    snprintf(sub, sizeof sub, "%s/log.txt", r->out);
    r->log = fopen(sub, o->resume ? "a" : "w");
    if (!r->log) {
        fprintf(stderr, "flipsim: %s: cannot write: %s\n", sub, strerror(errno));
        return EXIT_IO;
    }
    if (sim_init(&r->sim, &r->scene, track) != 0) {
        fprintf(stderr, "flipsim: %s\n", r->sim.error.message);
        return r->sim.error.status == RUN_OUT_OF_MEMORY ? EXIT_MEMORY : EXIT_IO;
    }
    if (o->resume && checkpoint_load(&r->sim, o->resume, err, sizeof err) != 0)
        return cli_error("%s", err);
    rc = cli_clear_out(r, o->resume ? r->sim.frame : -1);
    if (rc)
        return rc;
    rc = cli_pick_device(r);
    if (rc)
        return rc;
    if (output_open(&r->output, r->out, &r->scene, &r->sim.grid, o->slices, o->nslices,
                    o->resume ? r->sim.frame : -1, err, sizeof err) != 0) {
        fprintf(stderr, "flipsim: %s\n", err);
        return EXIT_IO;
    }
    r->output.mesher = r->devices ? r->devices->surface : NULL;
    r->output.aniso_mesher = r->devices ? r->devices->surface_anisotropic : NULL;
    /* A student's stage may crash the process: then every frame before it must be on disk. */
    bool overlap = !o->sync_writes && strcmp(r->sim.track.name, "reference") == 0;
    if (output_start_writer(&r->output, overlap) != 0) {
        fprintf(stderr, "flipsim: out of memory starting the frame writer\n");
        return EXIT_MEMORY;
    }
    /* On a device the host's particles change only in its download: the writer thread may
     * write a frame from them while the next one runs there, if the download waits for it. */
    if (r->output.threaded && r->sim.backend != &sim_host_backend && r->devices &&
        r->devices->guard_download) {
        r->devices->guard_download(r->sim.backend, output_wait_writer, &r->output);
        r->output.lend_to = r->sim.backend;
    }
    if (r->output.usd_missing && !o->quiet)
        fprintf(stderr, "flipsim: note: %s/scene.usda leaves out %d of frames 0-%d: their PLY "
                "files are not in %s\n", r->out, r->output.usd_missing, r->sim.frame, r->out);
    r->first_frame = r->sim.frame;
    cli_log(r, "%s %s: %s track on %s, solver %s (%s), %zu particles, from frame %d\n",
            o->resume ? "resume" : "start", r->scene.path, r->sim.track.name, cli_device_name(r),
            r->sim.solver_name, r->sim.solver_variant, r->sim.particles.count, r->sim.frame);
    if (strcmp(r->sim.solver_name, r->scene.pressure.solver) != 0 && !r->scene.use_gauss_seidel &&
        !o->quiet)
        fprintf(stderr, "flipsim: note: pressure.solver \"%s\" is not in the %s track; using "
                "its jacobi stage (set use_gauss_seidel=true for the given solver)\n",
                r->scene.pressure.solver, r->sim.track.name);
    cli_log_stepping(r, o);
    return o->resume ? EXIT_OK : cli_write_frame(r);
}

/* Buffers come and go every frame: the download's staging pieces, the surface's, the
 * preview's. glibc maps each one fresh (mmap) or hands the freed top of the heap back to the
 * kernel, so every frame would fault the same pages in again, a page at a time
 * (reference/PERFORMANCE.md has the count). So blocks up to 1 MiB come from the heap, which is
 * never trimmed; larger ones are mapped on their own and go back to the kernel when freed. Up
 * to 32 MiB, as this kept them before, the heap held on to every frame buffer's largest size
 * at once: 57 MB more at the peak of ball_drop at 128^3 on OpenCL (issue 42), where the buffers
 * that large that still come every frame (the preview's, the surface's) are each a few
 * hundred pages to fault per frame. The reference flipsim and make bench call it; the student
 * build and the grader's runner, which caps a run's address space, keep glibc's defaults. */
void cli_keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

int cli_main(int argc, char **argv, const CliBuild *build)
{
    const Track *student = build->student, *reference = build->reference;
    const CliDevices *devices = build->devices;
    Options opt;
    Run r = { .opt = &opt, .devices = devices, .lock_fd = -1 };
    Track track;
    int rc = cli_parse(argc, argv, &opt, student, reference, devices);
    if (rc == 0 && opt.list_devices) {
        if (!devices) {
            printf("this build has no OpenCL pipeline: it runs the stages in C\n");
            return EXIT_OK;
        }
        devices->list(stdout); /* "no OpenCL platform found" is an answer, not an error */
        return EXIT_OK;
    }
    if (rc == 0)
        rc = cli_pick_track(&opt, student, reference, &track);
    if (rc == 0)
        rc = cli_load_scene(&r);
    if (rc == 0 && opt.print) {
        rc = cli_print_value(&r);
        scene_free(&r.scene);
        return rc;
    }
    if (rc == 0) {
        r.progress = !opt.quiet && isatty(STDERR_FILENO);
        rc = cli_start(&r, &track);
    }
    int last = opt.frames >= 0 ? opt.frames : r.scene.frames;
    if (rc == 0 && build->settings_final)
        build->settings_final(&r.scene, last);
    if (rc == 0)
        rc = cli_run_frames(&r, last);
    char err[MESSAGE_MAX];
    double closing = cli_now();
    if (output_close(&r.output, err, sizeof err) != 0) {
        fprintf(stderr, "flipsim: %s\n", err);
        rc = rc ? rc : EXIT_IO;
    }
    /* After the close, so the summary counts assembling scene.usda. */
    if (rc == EXIT_OK && !opt.quiet)
        cli_summary(&r, r.elapsed + cli_now() - closing);
    if (r.log)
        fclose(r.log);
    sim_free(&r.sim);
    scene_free(&r.scene);
    if (r.lock_fd >= 0)
        close(r.lock_fd); /* OUT is free for the next run */
    return rc;
}
