/* svg2graph — SVG to diagramir IR: geometry plus the graph (vertex and edge
 * records). See man/svg2graph.1. */
#include "ir/cli.h"
#include "ir/ir.h"
#include "ir/progress.h"
#include "ir/xalloc.h"
#include "graph/build.h"
#include "llm/opts.h"
#include "llm/svg_refine.h"
#include "svg/doc.h"
#include "svg/render.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void usage(FILE *f)
{
    fprintf(f, "usage: svg2graph [OPTION]... [FILE.svg]...\n"
          "Convert SVG diagrams to diagramir IR: geometry, and the graph as vertex and edge\n"
          "records. With no FILE, or FILE '-', read standard input.\n\n"
          "  -k, --merge-k=K        merge texts whose baselines are within K x font size (1.5)\n"
          "      --tau=T            ... and whose horizontal spans overlap by more than T (0.2)\n"
          "  -a, --attach-tol=PT    connector ends attach to nodes within PT points (8)\n"
          "      --join-tol=PT      connector pieces meeting within PT form a chain (1.5)\n"
          "      --label-k=K        free text within K x font size of a connector labels it (2.5)\n"
          "      --arrow-max=PT     largest arrowhead polygon, PT points (25)\n"
          "  -g, --graph-only       write only the vertex and edge records\n"
          "  -i, --id=ID            diagram id for stdin input (default: stdin)\n"
          "      --max-size=BYTES   largest input accepted (default 67108864)\n"
          "      --max-depth=N      deepest element nesting accepted (default 256)\n"
          "      --no-header        omit the 'diagramir 1' stream header\n"
          "      --no-groups        read the drawing alone, not which <g> holds what\n"
          "      --json             write JSON (one object per diagram per line) instead of IR\n"
          "  -q, --quiet            no warnings, LLM summary or progress line on stderr\n"
          "      --progress         always show the progress line on stderr (files or LLM\n"
          "                         steps done, ETA)\n"
          "      --no-progress      never show it (default: on a terminal, for a long run)\n"
          "%s"
          "  -h, --help             show this help and exit\n"
          "  -V, --version          show the version and exit\n\n"
          "LLM refinement (svg2graph(1), LLM REFINEMENT; records it makes carry src=llm):\n"
          "      --llm[=STEPS]        refine the geometric graph with a language model:\n"
          "                           nodes (merge, add, remove), edges (add, remove), or\n"
          "                           both (the default: nodes, then edges)\n"
          "                           Each request carries the SVG rendered to PNG, as in\n"
          "                           DiagramEval (svg2graph(1), IMAGES)\n"
          "      --llm-no-image       send no picture\n"
          "      --llm-svg-source     send the SVG source too (its first 65536 bytes); the\n"
          "                           paper's model sees the picture only (the default)\n"
          "      --llm-svg-max=BYTES  send at most BYTES of the SVG source (0: none, the\n"
          "                           default; more than 0 sends the source)\n"
          "      --prompt-dir=DIR     look for svg2graph-nodes.prompt and svg2graph-edges.prompt\n"
          "                           in DIR first\n"
          "      --dry-run            print the requests as JSON lines instead of the IR;\n"
          "                           send nothing\n", cli_help(25));
    fputs(llm_image_opts_help, f);
    fputs(llm_opts_help, f);
    fputs("\nExit status: 0 success, 1 the LLM refinement of some diagram failed (its geometric\n"
          "graph is written, with a warning; 0 with --exit-zero), 2 usage or input error.\n", f);
}

static char *base_id(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && strcmp(b + n - 4, ".svg") == 0) n -= 4;
    char *r = malloc(n + 1);
    if (!r) exit(2);
    memcpy(r, b, n);
    r[n] = 0;
    return r;
}

static double parse_opt_num(const char *name, const char *s, double lo, double hi)
{
    double v;
    if (!ir_parse_num(s, &v) || v < lo || v > hi) {
        fprintf(stderr, "svg2graph: --%s: '%s' is not a number in [%g, %g]\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

static const char *role_name(int role)
{
    switch (role) {
    case GRAPH_SH_NODE: return "node";
    case GRAPH_SH_ARROWHEAD: return "arrowhead";
    case GRAPH_SH_CONNECTOR: return "connector";
    case GRAPH_SH_BACKGROUND: return "background";
    case GRAPH_SH_MARKER: return "marker";
    default: return NULL;
    }
}

static void vertex_id(char *buf, size_t n, size_t i)
{
    snprintf(buf, n, "n%zu", i + 1);
}

static ir_diagram *to_ir(const svg_scene *sc, const graph_result *g, const char *id,
                         const char *src, int graph_only)
{
    ir_diagram *d = ir_diagram_new(id);
    if (src) ir_set_attr(&d->attrs, &d->nattrs, "src", src);
    char vid[32];
    if (!graph_only) {
        ir_box bb = ir_box_empty();
        for (size_t i = 0; i < sc->nshapes; i++) {
            const svg_shape *s = &sc->shapes[i];
            if (!s->filled && !s->stroked) continue;
            if (g->shape_role[i] == GRAPH_SH_BACKGROUND) continue;
            for (size_t j = 0; j < s->n; j++) ir_box_add(&bb, s->pts[j].x, s->pts[j].y);
        }
        for (size_t i = 0; i < sc->ntexts; i++) ir_box_union(&bb, sc->texts[i].box);
        if (!bb.empty) {
            d->has_bbox = 1;
            d->bbox[0] = bb.x1; d->bbox[1] = bb.y1; d->bbox[2] = bb.x2; d->bbox[3] = bb.y2;
        }
        for (size_t i = 0; i < sc->nshapes; i++) {
            const svg_shape *s = &sc->shapes[i];
            ir_elem *e;
            if (s->axis_rect) {
                e = ir_add(d, IR_RECT);
                ir_pt p[2] = { s->pts[0], s->pts[2] };
                ir_elem_set_pts(e, p, 2);
            } else if (s->ellipse) {
                e = ir_add(d, IR_ELLIPSE);
                ir_pt p[3] = { s->ec, s->ea, s->eb };
                ir_elem_set_pts(e, p, 3);
            } else {
                e = ir_add(d, IR_POLY);
                ir_elem_set_pts(e, s->pts, s->n);
                e->closed = s->closed;
            }
            ir_elem_set(e, "draw", s->stroke);
            ir_elem_set(e, "fill", s->fill);
            if (s->stroked) ir_elem_setf(e, "lw", "%.3g", s->lw);
            if (s->dashed) ir_elem_set(e, "dash", "dashed");
            if (s->arrow_start || s->arrow_end)
                ir_elem_set(e, "arrows", s->arrow_start && s->arrow_end ? "<->" : s->arrow_end ? "->" : "<-");
            const char *rn = role_name(g->shape_role[i]);
            if (rn) ir_elem_set(e, "role", rn);
            e->line = s->line;
        }
        for (size_t i = 0; i < sc->ntexts; i++) {
            const svg_text *t = &sc->texts[i];
            ir_elem *e = ir_add(d, IR_TEXT);
            ir_pt p[2] = { { t->box.x1, t->box.y1 }, { t->box.x2, t->box.y2 } };
            ir_elem_set_pts(e, p, 2);
            e->str = xstrdup(t->text);
            char nb[32];
            ir_elem_set(e, "size", ir_fmt_num(nb, t->size));
            if (g->text_vertex[i] >= 0) {
                vertex_id(vid, sizeof vid, (size_t)g->text_vertex[i]);
                ir_elem_set(e, "node", vid);
            } else if (g->text_vertex[i] == -2) {
                ir_elem_set(e, "role", "label");
            }
            e->line = t->line;
        }
    }
    for (size_t i = 0; i < g->nv; i++) {
        const graph_vertex *v = &g->v[i];
        ir_elem *e = ir_add(d, IR_VERTEX);
        vertex_id(vid, sizeof vid, i);
        e->name = xstrdup(vid);
        e->str = xstrdup(v->text);
        ir_pt p[2] = { { v->box.x1, v->box.y1 }, { v->box.x2, v->box.y2 } };
        ir_elem_set_pts(e, p, 2);
        ir_elem_set(e, "shape", v->shape);
        e->line = v->line;
    }
    for (size_t i = 0; i < g->ne; i++) {
        const graph_edge *ge = &g->e[i];
        ir_elem *e = ir_add(d, IR_EDGE);
        vertex_id(vid, sizeof vid, ge->from);
        e->name = xstrdup(vid);
        vertex_id(vid, sizeof vid, ge->to);
        e->str = xstrdup(vid);
        e->undirected = ge->undirected;
        if (ge->label) ir_elem_set(e, "label", ge->label);
        e->line = ge->line;
    }
    return d;
}

/* Keeps only the vertex and edge records (--graph-only after --llm, which
 * needs the text records). */
static void strip_to_graph(ir_diagram *d)
{
    size_t w = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        if (d->elems[i].kind == IR_VERTEX || d->elems[i].kind == IR_EDGE) d->elems[w++] = d->elems[i];
        else ir_elem_clear(&d->elems[i]);
    }
    d->nelems = w;
    d->has_bbox = 0;
}

static unsigned parse_steps(const char *s)
{
    if (!s || strcmp(s, "both") == 0 || strcmp(s, "nodes,edges") == 0) return S2L_NODES | S2L_EDGES;
    if (strcmp(s, "nodes") == 0) return S2L_NODES;
    if (strcmp(s, "edges") == 0) return S2L_EDGES;
    fprintf(stderr, "svg2graph: error: --llm: '%s' is not nodes, edges or both\n", s);
    exit(2);
}

typedef struct {
    graph_opts go;
    svg_limits lim;
    const char *stdin_id;
    int graph_only, header, json, quiet, llm, dry, pmode, no_groups;
    llm_config lc;
    s2l_opts lo;
} options;

/* Reads the options; -1 to go on, else the exit status (--help, --version,
 * a wrong option). */
static int parse_options(int argc, char **argv, options *o)
{
    enum {
        O_JOIN = 256, O_LABEL, O_ARROW, O_MAXSIZE, O_MAXDEPTH, O_LLM, O_NOHEADER, O_NOGROUPS, O_SVGMAX,
        O_PROMPTDIR, O_DRYRUN, O_NOIMAGE, O_SVGSRC
    };
    static const struct option longopts[] = {
        { "merge-k", required_argument, NULL, 'k' },
        { "tau", required_argument, NULL, 't' },
        { "attach-tol", required_argument, NULL, 'a' },
        { "join-tol", required_argument, NULL, O_JOIN },
        { "label-k", required_argument, NULL, O_LABEL },
        { "arrow-max", required_argument, NULL, O_ARROW },
        { "graph-only", no_argument, NULL, 'g' },
        { "id", required_argument, NULL, 'i' },
        { "max-size", required_argument, NULL, O_MAXSIZE },
        { "max-depth", required_argument, NULL, O_MAXDEPTH },
        { "llm", optional_argument, NULL, O_LLM },
        { "llm-svg-max", required_argument, NULL, O_SVGMAX },
        { "llm-no-image", no_argument, NULL, O_NOIMAGE },
        { "llm-svg-source", no_argument, NULL, O_SVGSRC },
        LLM_IMAGE_LONG_OPTIONS,
        { "prompt-dir", required_argument, NULL, O_PROMPTDIR },
        { "dry-run", no_argument, NULL, O_DRYRUN },
        LLM_LONG_OPTIONS,
        PROGRESS_LONG_OPTIONS,
        { "no-header", no_argument, NULL, O_NOHEADER },
        { "no-groups", no_argument, NULL, O_NOGROUPS },
        { "json", no_argument, NULL, 'j' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        CLI_LONG_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    cli_init("svg2graph");
    memset(o, 0, sizeof *o);
    graph_opts_init(&o->go);
    o->stdin_id = "stdin";
    o->header = 1;
    o->pmode = PROGRESS_AUTO;
    llm_config_init(&o->lc);
    /* the picture only, as DiagramEval sends it; the SVG source on request */
    o->lo = (s2l_opts){ S2L_NODES | S2L_EDGES, 0, NULL, NULL, 0, {0} };
    llm_image_opts_init(&o->lo.image);
    int c;
    while ((c = getopt_long(argc, argv, "k:a:gi:qo:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'k': o->go.k = parse_opt_num("merge-k", optarg, 0, 100); break;
        case 't': o->go.tau = parse_opt_num("tau", optarg, 0, 1); break;
        case 'a': o->go.attach_tol = parse_opt_num("attach-tol", optarg, 0, 1e6); break;
        case O_JOIN: o->go.join_tol = parse_opt_num("join-tol", optarg, 0, 1e6); break;
        case O_LABEL: o->go.label_k = parse_opt_num("label-k", optarg, 0, 100); break;
        case O_ARROW: o->go.arrow_max = parse_opt_num("arrow-max", optarg, 0, 1e6); break;
        case 'g': o->graph_only = 1; break;
        case 'i': o->stdin_id = optarg; break;
        case O_MAXSIZE: o->lim.max_size = (size_t)parse_opt_num("max-size", optarg, 1, 1e12); break;
        case O_MAXDEPTH: o->lim.max_depth = (int)parse_opt_num("max-depth", optarg, 1, 100000); break;
        case O_LLM: o->llm = 1; o->lo.steps = parse_steps(optarg); break;
        case O_SVGMAX: o->lo.svg_max = (size_t)parse_opt_num("llm-svg-max", optarg, 0, 1e9); break;
        case O_PROMPTDIR: o->lo.prompt_dir = optarg; break;
        case O_NOIMAGE: o->lo.no_image = 1; break;
        case O_SVGSRC: if (o->lo.svg_max == 0) o->lo.svg_max = 65536; break;
        case O_DRYRUN: o->dry = 1; break;
        case O_NOHEADER: o->header = 0; break;
        case O_NOGROUPS: o->no_groups = 1; break;
        case 'j': o->json = 1; break;
        case 'q': o->quiet = 1; break;
        case PROGRESS_OPT_ON: o->pmode = PROGRESS_ON; break;
        case PROGRESS_OPT_OFF: o->pmode = PROGRESS_OFF; break;
        case 'h': usage(stdout); return 0;
        case 'V': return cli_version();
        default:
            if (LLM_OPT_IS(c)) {
                if (llm_opt_parse(&o->lc, c, optarg, "svg2graph") != 0) return 2;
                break;
            }
            if (LLM_IMAGE_OPT_IS(c)) {
                if (llm_image_opt_parse(&o->lo.image, c, optarg, "svg2graph") != 0) return 2;
                break;
            }
            if (!cli_opt(c, optarg, "[OPTION]... [FILE.svg]...")) return 2;
            break;
        }
    }
    if (o->dry && !o->llm) {
        fputs("svg2graph: error: --dry-run prints the requests of --llm; give --llm too\n", stderr);
        return 2;
    }
    return -1;
}

/* Reads the SVG file at path ("-": standard input), at most max_size
 * bytes; NULL after the error (on diag). */
static char *read_svg(const char *path, const char *fname, size_t max_size, size_t *len,
                      FILE *diag)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(diag, "svg2graph: %s: %s\n", path, strerror(errno));
        return NULL;
    }
    int too_big = 0;
    char *src = ir_read_all(f, max_size, len, &too_big);
    if (!is_stdin) fclose(f);
    if (!src) {
        fprintf(diag, "svg2graph: %s: read error: %s\n", path, strerror(errno));
        return NULL;
    }
    if (too_big) {
        fprintf(diag, "%s:1:1: error: input larger than %zu bytes (--max-size)\n", fname, max_size);
        free(src);
        return NULL;
    }
    return src;
}

/* One SVG file into IR on standard output (refined by the model when
 * refine is not NULL; *llm_failed set when that fails); 0, or 2 after an
 * error. Messages go to diag. */
static int convert(const options *o, s2l *refine, const char *path, int *llm_failed, FILE *diag)
{
    size_t max_size = o->lim.max_size ? o->lim.max_size : SVG_DEFAULT_MAX_SIZE;
    int is_stdin = strcmp(path, "-") == 0;
    const char *fname = is_stdin ? "<stdin>" : path;
    size_t len = 0;
    char *src = read_svg(path, fname, max_size, &len, diag);
    if (!src) return 2;
    char err[1024] = "";
    svg_doc *doc = svg_doc_parse(src, len, fname, &o->lim, err, sizeof err);
    if (!doc) {
        fprintf(diag, "%s\n", err);
        free(src);
        return 2;
    }
    svg_scene sc;
    memset(&sc, 0, sizeof sc);
    if (svg_render(doc, fname, NULL, &sc, err, sizeof err, o->quiet ? NULL : diag) < 0) {
        fprintf(diag, "%s\n", err);
        svg_scene_free(&sc);
        svg_doc_free(doc);
        free(src);
        return 2;
    }
    if (o->no_groups) {
        for (size_t i = 0; i < sc.nshapes; i++) sc.shapes[i].group = 0;
        for (size_t i = 0; i < sc.ntexts; i++) sc.texts[i].group = 0;
    }
    graph_result g;
    if (graph_build(&sc, &o->go, &g) < 0) {
        fprintf(diag, "%s:1:1: error: the graph would take more than %llu comparisons of "
                "elements (elements piled on one another in the thousands): no diagram written\n",
                fname, (unsigned long long)GRAPH_MAX_WORK);
        graph_result_free(&g);
        svg_scene_free(&sc);
        svg_doc_free(doc);
        free(src);
        return 2;
    }
    char *id = is_stdin ? NULL : base_id(path);
    ir_diagram *d = to_ir(&sc, &g, is_stdin ? o->stdin_id : id, is_stdin ? NULL : path,
                          o->graph_only && !refine);
    if (refine) {
        int lr = s2l_apply(refine, d, src, len, fname, o->quiet ? NULL : diag);
        if (lr == 2) {   /* no picture for the model: an input error, nothing written */
            free(src);
            ir_diagram_free(d);
            free(id);
            graph_result_free(&g);
            svg_scene_free(&sc);
            svg_doc_free(doc);
            return 2;
        }
        if (lr != 0) *llm_failed = 1;
        if (o->graph_only) strip_to_graph(d);
    }
    free(src);
    if (!o->dry) {
        if (o->json) ir_write_json(stdout, d);
        else ir_write_diagram(stdout, d);
    }
    ir_diagram_free(d);
    free(id);
    graph_result_free(&g);
    svg_scene_free(&sc);
    svg_doc_free(doc);
    return 0;
}

static void step_done(void *bar)
{
    progress_step(bar, 1);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    if (cli_output_begin() != 0) return 2;
    rc = 0;
    s2l *refine = NULL;
    char price_path[4096];
    if (o.llm && !o.lc.price_file &&
        llm_find_data(o.lo.prompt_dir, "prices.tsv", price_path, sizeof price_path) == 0)
        o.lc.price_file = price_path;   /* the summary's cost, as judge's */
    if (o.llm) {
        char err[1024];
        if (o.dry) o.lo.dry_run = stdout;
        refine = s2l_new(&o.lc, &o.lo, err, sizeof err);
        if (!refine) {
            fprintf(stderr, "svg2graph: error: --llm: %s\n", err);
            return 2;
        }
    }
    int llm_failed = 0;
    if (o.header && !o.json && !o.dry) ir_write_header(stdout);
    int nfiles = argc - optind, nin = nfiles ? nfiles : 1;
    /* The progress line: the model's steps (nodes, edges) of every input
     * with --llm, else the files when there are several. NULL when it is
     * not shown (decided once). */
    if (o.quiet && o.pmode == PROGRESS_AUTO) o.pmode = PROGRESS_OFF;
    size_t nsteps = !!(o.lo.steps & S2L_NODES) + !!(o.lo.steps & S2L_EDGES);
    progress *bar = NULL;
    if (refine && !o.dry) {
        bar = progress_start("svg2graph", "llm steps", (size_t)nin * nsteps, o.pmode);
        if (bar) s2l_on_step(refine, step_done, bar);
    } else if (nfiles > 1) {
        bar = progress_start("svg2graph", "files", (size_t)nfiles, o.pmode);
    }
    FILE *diag = progress_stream(bar);
    for (int i = 0; i < nin; i++) {
        if (convert(&o, refine, nfiles ? argv[optind + i] : "-", &llm_failed, diag) != 0) rc = 2;
        if (refine && !o.dry) progress_set(bar, (size_t)(i + 1) * nsteps);  /* failed inputs too */
        else progress_step(bar, 1);
    }
    progress_done(bar);
    s2l_free(refine, o.quiet || o.dry ? NULL : stderr);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "svg2graph: write error: %s\n", strerror(errno));
        return 2;
    }
    return cli_exit(rc ? rc : llm_failed);
}
