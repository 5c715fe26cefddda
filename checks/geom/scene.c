/* scene.c — building the per-diagram analysis the geom checks share (see
 * geom.h): the elements' attributes, texts, dots, segments, faces and closed
 * shapes, clip regions and the projection of 3D coordinates; the scene's
 * memory. The scene's other parts: scene_index.c (the segment grid, the
 * point hash), scene_corners.c (rays and corners), scene_marks.c (angle
 * marks and ticks), scene_joins.c (where lines meet). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/scene_internal.h"
#include "ir/ir_num.h"
#include "ir/xalloc.h"

/* Whether strings a and b are equal (the values compared are short). */
static int streq(const char *a, const char *b)
{
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

/* k equals the n-byte literal lit (k[0] == lit[0] is known; no byte
 * past a difference or k's end is read). */
static inline int keq(const char *k, const char *lit, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (k[i] != lit[i]) return 0;
    return k[n] == '\0';
}

/* Reads an element's attributes once. */
static void read_attrs(const ir_elem *e, geom_attrs *a)
{
    memset(a, 0, sizeof *a);
    const char *role = NULL;
    for (size_t i = 0; i < e->nattrs; i++) {
        const char *k = e->attrs[i].key, *v = e->attrs[i].val;
        const char **slot = NULL;
        switch (k[0]) {
        case 'a':
            if (keq(k, "arrows", 6)) slot = &a->arrows;
            else if (keq(k, "along", 5)) slot = &a->along;
            break;
        case 'c': if (keq(k, "clip", 4)) slot = &a->clip; break;
        case 'd':
            if (keq(k, "draw", 4)) slot = &a->draw;
            else if (keq(k, "dash", 4)) slot = &a->dash;
            break;
        case 'f': if (keq(k, "fill", 4)) slot = &a->fill; break;
        case 'i': if (keq(k, "id", 2)) slot = &a->id; break;
        case 'o': if (keq(k, "of", 2)) slot = &a->of; break;
        case 'r': if (keq(k, "role", 4)) slot = &role; break;
        case 's': if (keq(k, "size", 4)) slot = &a->size; break;
        case 't': if (keq(k, "tex", 3)) slot = &a->tex; break;
        case 'v': if (keq(k, "vertex", 6)) slot = &a->vertex; break;
        case 'x': if (keq(k, "xyz", 3)) slot = &a->xyz; break;
        default: break;
        }
        /* the first of a key counts, as ir_elem_get reads it */
        if (slot && !*slot) *slot = v;
    }
    a->role = ROLE_NONE;
    if (role) {
        if (streq(role, "vertex")) a->role = ROLE_VERTEX;
        else if (streq(role, "right-angle")) a->role = ROLE_RIGHT_ANGLE;
        else if (streq(role, "angle-mark")) a->role = ROLE_ANGLE_MARK;
        else if (streq(role, "grid")) a->role = ROLE_GRID;
        else if (streq(role, "axis")) a->role = ROLE_AXIS;
        else if (streq(role, "axis-label")) a->role = ROLE_AXIS_LABEL;
        else if (streq(role, "tick")) a->role = ROLE_TICK;
        else a->role = ROLE_OTHER;
    }
    a->stroked = !a->draw || !streq(a->draw, "none");
    a->filled = a->fill && !streq(a->fill, "none");
    a->dashed = a->dash && !streq(a->dash, "solid");
    a->dim = a->arrows && (strchr(a->arrows, '>') || strchr(a->arrows, '<'));
    a->self_fill = a->draw && a->fill && streq(a->draw, a->fill);
}

/* Decimal numbers as strtod reads them (the common short forms without a
 * library call: ir/ir_num.h). */
static double parse_num(const char *s, char **end)
{
    return ir_num_strtod_inline(s, end);
}

int scene_parse_pts(const char *s, ir_pt *out, size_t max)
{
    /* "X,Y" or "X1,Y1,X2,Y2": numbers separated by commas */
    size_t k = 0;
    double v[8];
    while (s && *s && k < 2 * max && k < 8) {
        char *end;
        v[k] = parse_num(s, &end);
        if (end == s || !isfinite(v[k])) return 0;
        k++;
        s = end;
        if (*s == ',') s++;
        else break;
    }
    if (k != 2 * max) return 0;
    for (size_t i = 0; i < max; i++) out[i] = ir_v(v[2 * i], v[2 * i + 1]);
    return 1;
}

/* What may end a number of xyz=: ',', ';' or the end of the text. */
static inline int xyz_end(char c)
{
    return c == ',' || c == ';' || c == '\0';
}

/* One number of xyz= at *sp into *out, then the separator after it
 * unless it is the last; 0 when malformed. Always inlined into
 * parse_xyz's three calls: most of a scene's numbers are read here. */
static inline __attribute__((always_inline)) int xyz_num(const char **sp, double *out, int last)
{
    const char *s = *sp;
    unsigned d0 = (unsigned)(s[0] - '0');
    if (d0 < 10u) {
        char c1 = s[1];
        /* one digit alone ("0", "1"): its value, as below */
        if (xyz_end(c1)) {
            *out = (double)d0;
            s += 1;
            goto fast;
        }
        /* "d.d" and "d.dd" (most of the rest: 0.25, 0.5, 0.75): m and frac
         * as ir_num_scan_ finds them, the same value as below. Each byte is
         * read only after the one before it was a digit or '.', never past
         * the NUL. */
        if (c1 == '.') {
            unsigned d2 = (unsigned)(s[2] - '0');
            if (d2 < 10u) {
                char c3 = s[3];
                if (xyz_end(c3)) {
                    *out = ir_num_value_(0, d0 * 10u + d2, 1);
                    s += 3;
                    goto fast;
                }
                unsigned d3 = (unsigned)(c3 - '0');
                if (d3 < 10u && xyz_end(s[4])) {
                    *out = ir_num_value_(0, d0 * 100u + d2 * 10u + d3, 2);
                    s += 4;
                    goto fast;
                }
            }
        }
    }
    /* the short form ([+-] digits [. digits], at most 15 digits, ended
     * by anything but an exponent or a letter) as parse_num reads it,
     * here without its checks for what it cannot give */
    int neg;
    unsigned long long m;
    size_t ndig, frac;
    const char *p = ir_num_scan_(s, &neg, &m, &ndig, &frac);
    if (ndig - 1 < 15 && xyz_end(*p)) {
        *out = ir_num_value_(neg, m, frac);
        s = p;
    } else {
        char *end;
        *out = parse_num(s, &end);
        if (end == s || !isfinite(*out)) return 0;
        s = end;
    }
    if (!last) {
        if (*s != ',' && *s != ';') return 0;
        s++;
    }
    *sp = s;
    return 1;
fast:
    /* *s is ',', ';' or the NUL */
    if (!last) {
        if (!*s) return 0;
        s++;
    }
    *sp = s;
    return 1;
}

/* xyz=X,Y,Z;X,Y,Z;... -> n points into v; 0 when malformed. */
static int parse_xyz(const char *s, size_t n, ir_pt3 *v)
{
    if (!s || n == 0) return 0;
    for (size_t j = 0; j < n; j++)
        if (!xyz_num(&s, &v[j].x, 0) || !xyz_num(&s, &v[j].y, 0) ||
            !xyz_num(&s, &v[j].z, j + 1 == n))
            return 0;
    return 1;
}

/* The scene's memory: an arena (ir/arena.h) freed with the scene, in
 * chunks of 16 KiB and more, 16-byte aligned. The flattened outlines and the
 * faces' 3D points live there. */
void *geom_scene_alloc(geom_scene *s, size_t bytes)
{
    return ir_arena_alloc(&scene_priv_of(s)->arena, bytes ? bytes : 1, 16);
}

/* --- building ---------------------------------------------------------------- */
static inline void add_seg(geom_scene *s, size_t *cap, const ir_elem *e, size_t idx, ir_pt a,
                           ir_pt b, geom_seg_class cls, int curved, const ir_pt3 *xyz3a,
                           const ir_pt3 *xyz3b)
{
    double len = ir_v_dist(a, b);
    if (len <= 1e-9) return;
    GROW(s->segs, s->nsegs, *cap);
    geom_seg *g = &s->segs[s->nsegs++];
    /* every field is set below (no memset: the padding is never read) */
    g->shared[0] = g->shared[1] = 0;
    g->a = a;
    g->b = b;
    g->len = len;
    g->len3 = -1;
    if (xyz3a && xyz3b)
        g->len3 = sqrt((xyz3a->x - xyz3b->x) * (xyz3a->x - xyz3b->x) +
                       (xyz3a->y - xyz3b->y) * (xyz3a->y - xyz3b->y) +
                       (xyz3a->z - xyz3b->z) * (xyz3a->z - xyz3b->z));
    g->elem = idx;
    g->line = e->line;
    g->cls = cls;
    g->curved = curved;
    g->visible = s->attrs[idx].stroked || s->attrs[idx].filled;
    g->dashed = s->attrs[idx].dashed;
    g->comp = -1;
}

geom_seg_class scene_elem_class(const geom_attrs *a)
{
    if (a->role == ROLE_RIGHT_ANGLE || a->role == ROLE_ANGLE_MARK) return SEG_MARK;
    if (a->role == ROLE_GRID) return SEG_GRID;
    if (a->role == ROLE_AXIS) return SEG_AXIS;
    if (a->dim) return SEG_DIM;
    return SEG_FIGURE;
}

static int is_dot(const ir_elem *e, const geom_attrs *a)
{
    if (a->role == ROLE_VERTEX) return 1;
    if (e->kind != IR_ELLIPSE || e->npts < 3) return 0;
    double ra = ir_v_len(e->pts[1]), rb = ir_v_len(e->pts[2]);
    return a->filled && ra <= GEOM_DOT_MAX_PT && rb <= GEOM_DOT_MAX_PT;
}

int scene_is_dot(const ir_elem *e, const geom_attrs *a) { return is_dot(e, a); }

/* --- clip regions ------------------------------------------------------- */
static int reg_inside(const geom_clip *r, ir_pt p, double tol)
{
    if (!r->pts) return ir_box_contains_pt(ir_box_inset(r->box, tol), p);
    if (ir_pt_in_poly(p, r->pts, r->n)) return 1;
    for (size_t i = 0; i < r->n; i++)
        if (ir_pt_seg_dist(p, r->pts[i], r->pts[(i + 1) % r->n], NULL) <= tol) return 1;
    return 0;
}

static int reg_strictly_inside(const geom_clip *r, ir_pt p, double tol)
{
    if (!r->pts) return ir_box_contains_pt(ir_box_inset(r->box, -tol), p);
    if (!ir_pt_in_poly(p, r->pts, r->n)) return 0;
    for (size_t i = 0; i < r->n; i++)
        if (ir_pt_seg_dist(p, r->pts[i], r->pts[(i + 1) % r->n], NULL) < tol) return 0;
    return 1;
}

int geom_clip_relation(const geom_scene *s, size_t elem, const ir_pt *p, size_t n, double *out)
{
    *out = 0;
    if (elem >= s->d->nelems || s->clip_of[elem] < 0) return 0;
    const geom_clip *r = &s->clips[s->clip_of[elem]];
    int in = 0, outn = 0;
    double far = 0;
    size_t i0 = 0;
    if (!r->pts) {
        /* a rectangle: the leading points inside it (grown and shrunk by
         * the tolerance, as reg_inside and reg_strictly_inside test) at once */
        ir_box grown = r->grown, shrunk = r->shrunk;
        for (; i0 < n && ir_box_contains_pt(grown, p[i0]); i0++)
            if (ir_box_contains_pt(shrunk, p[i0])) in++;
    }
    for (size_t i = i0; i < n; i++) {
        if (reg_inside(r, p[i], GEOM_FRAME_TOL_PT)) {
            if (reg_strictly_inside(r, p[i], GEOM_FRAME_TOL_PT)) in++;
            continue;
        }
        outn++;
        double d;
        if (!r->pts) d = ir_box_pt_dist(r->box, p[i]);
        else {
            d = 1e300;
            for (size_t k = 0; k < r->n; k++) {
                double x = ir_pt_seg_dist(p[i], r->pts[k], r->pts[(k + 1) % r->n], NULL);
                if (x < d) d = x;
            }
        }
        if (d > far) far = d;
    }
    *out = far;
    if (!outn) return 0;
    if (in) return 1;
    /* no point strictly inside: does some piece still cross the region? */
    for (size_t i = 0; i + 1 < n; i++) {
        double t0, t1;
        if (!r->pts) {
            if (ir_seg_box_clip(p[i], p[i + 1], ir_box_inset(r->box, -GEOM_FRAME_TOL_PT), &t0,
                                &t1) &&
                t1 > t0)
                return 1;
        } else if (reg_strictly_inside(r, ir_v_lerp(p[i], p[i + 1], 0.5), GEOM_FRAME_TOL_PT)) {
            return 1;
        }
    }
    return 2;
}

/* The clips with an id, sorted by id and, for equal ids, by clip: the
 * last clip of an id is the last of its run. */
typedef struct {
    const char *id;
    int c;
} clip_id;

static int cmp_clip_id(const void *a, const void *b)
{
    const clip_id *x = a, *y = b;
    int r = strcmp(x->id, y->id);
    return r ? r : (x->c > y->c) - (x->c < y->c);
}

/* The last clip whose id is id, or -1 (ids: n of them, sorted). */
static int clip_named(const clip_id *ids, size_t n, const char *id)
{
    size_t lo = 0, hi = n;   /* the first entry after id's run */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ids[mid].id, id) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && !strcmp(ids[lo - 1].id, id) ? ids[lo - 1].c : -1;
}

/* The clip an element is drawn in: the innermost clip its clip= attribute
 * names; without ids (older IR), the last clip before it. */
static void resolve_clips(geom_scene *s)
{
    const ir_diagram *d = s->d;
    s->clip_of = xmalloc(d->nelems * sizeof *s->clip_of);
    int with_ids = 0;
    for (size_t c = 0; c < s->nclips; c++)
        if (s->attrs[s->clips[c].elem].id) with_ids = 1;
    clip_id *ids = xmalloc((s->nclips ? s->nclips : 1) * sizeof *ids);
    size_t nids = 0;
    for (size_t c = 0; c < s->nclips; c++)
        if (s->attrs[s->clips[c].elem].id) {
            ids[nids].id = s->attrs[s->clips[c].elem].id;
            ids[nids++].c = (int)c;
        }
    qsort(ids, nids, sizeof *ids, cmp_clip_id);
    int cur = -1, prev_clip = -1;
    size_t nextc = 0;   /* the clips are in element order (read_clips) */
    const char *prev_id = NULL;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        s->clip_of[i] = -1;
        if (e->kind == IR_CLIP) {
            while (nextc < s->nclips && s->clips[nextc].elem < i) nextc++;
            if (nextc < s->nclips && s->clips[nextc].elem == i) cur = (int)nextc;
            continue;
        }
        if (!with_ids) { s->clip_of[i] = cur; continue; }
        const char *id = s->attrs[i].clip;
        if (!id) continue;
        /* the same clip= as the element before that had one: the same clip
         * (the answer depends on the text alone) */
        if (prev_id && streq(id, prev_id)) {
            s->clip_of[i] = prev_clip;
            continue;
        }
        prev_id = id;
        const char *last = strrchr(id, ',');
        last = last ? last + 1 : id;
        s->clip_of[i] = clip_named(ids, nids, last);
        prev_clip = s->clip_of[i];
    }
    free(ids);
}

/* 1 when the text lies entirely outside the clip region it is drawn in. */
static int text_clipped_away(const geom_scene *s, size_t i)
{
    const ir_elem *e = &s->d->elems[i];
    ir_pt c[4] = {{e->pts[0].x, e->pts[0].y}, {e->pts[1].x, e->pts[0].y},
                  {e->pts[1].x, e->pts[1].y}, {e->pts[0].x, e->pts[1].y}};
    double out;
    return geom_clip_relation(s, i, c, 4, &out) == 2;
}

/* The projection of the 3D coordinates, from every point given both ways:
 * one linear map for the whole picture, and a translation per polyline
 * (TikZ's xshift/yshift move a copy in the picture plane without telling
 * its depth). Polylines with the same translation are one placement. */
static void fit_projection(geom_scene *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nfaces; i++) n += s->faces[i].n;
    if (n < 4) return;
    ir_pt3 *p3 = xmalloc(n * sizeof *p3);
    ir_pt *p2 = xmalloc(n * sizeof *p2);
    size_t *off = xmalloc((s->nfaces + 1) * sizeof *off);
    ir_pt *tr = xmalloc(s->nfaces * sizeof *tr);
    size_t k = 0;
    for (size_t i = 0; i < s->nfaces; i++) {
        off[i] = k;
        for (size_t j = 0; j < s->faces[i].n; j++) {
            p3[k] = s->faces[i].p3[j];
            p2[k] = s->faces[i].p2[j];
            k++;
        }
    }
    off[s->nfaces] = k;
    double resid = 0;
    /* shift[i]: the mean of face i's picture points minus their images */
    ir_pt *shift = xmalloc(s->nfaces * sizeof *shift);
    s->has_proj = ir_fit_projection_shifts(p3, p2, off, s->nfaces, s->proj_m, &resid, shift) &&
                  resid <= GEOM_PROJ_FIT_TOL_PT;
    if (s->has_proj) {
        s->view = ir_view_dir((const double(*)[3])s->proj_m);
        int ng = 0;
        for (size_t i = 0; i < s->nfaces; i++) {
            geom_face *f = &s->faces[i];
            ir_pt t = shift[i];
            /* the first placement whose first path is shifted alike */
            f->group = -1;
            for (int g = 0; g < ng && f->group < 0; g++)
                if (ir_v_dist(tr[g], t) <= GEOM_PROJ_FIT_TOL_PT) f->group = g;
            if (f->group < 0) {
                tr[ng] = t;
                f->group = ng++;
            }
        }
    }
    free(p3);
    free(p2);
    free(off);
    free(tr);
    free(shift);
}

/* The room the build has in the scene's growing arrays. */
typedef struct {
    size_t segs, texts, marks, shapes, clips, dots, faces;
} scene_caps;

/* Each element's attributes, once; the flattened outlines start empty. */
static void read_all_attrs(geom_scene *s)
{
    const ir_diagram *d = s->d;
    s->attrs = xmalloc(d->nelems * sizeof *s->attrs);
    s->flat = xcalloc(d->nelems, sizeof *s->flat);
    s->nflat = xcalloc(d->nelems, sizeof *s->nflat);
    for (size_t i = 0; i < d->nelems; i++) read_attrs(&d->elems[i], &s->attrs[i]);
}

/* Room for the segments: a polyline has at most as many as points, a
 * rectangle 4, a flattened curve 24; ellipses and arcs take a guess (the
 * array grows when it is wrong). Room for the faces (polylines with xyz=)
 * and closed shapes (drawn outlines), counted: at most one of each per
 * element. */
static void size_arrays(geom_scene *s, scene_caps *cap)
{
    const ir_diagram *d = s->d;
    size_t nseg = 0, nf = 0, ns = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        switch (e->kind) {
        case IR_POLY: nseg += e->npts; break;
        case IR_RECT: nseg += 4; break;
        case IR_CURVE: nseg += 24; break;
        case IR_ELLIPSE: case IR_ARC: nseg += 64; break;
        default: break;
        }
        ir_kind k = e->kind;
        nf += k == IR_POLY && s->attrs[i].xyz;
        ns += k == IR_POLY || k == IR_RECT || k == IR_ELLIPSE || k == IR_ARC || k == IR_CURVE;
    }
    if (nseg) s->segs = xmalloc(nseg * sizeof *s->segs);
    if (nf) s->faces = xmalloc(nf * sizeof *s->faces);
    if (ns) s->shapes = xmalloc(ns * sizeof *s->shapes);
    cap->segs = nseg;
    cap->faces = nf;
    cap->shapes = ns;
}

/* Text node outlines (frame[]): a shape drawn for a node, right before the
 * node's text, from the same source line, around the text. */
static void find_frames(geom_scene *s)
{
    const ir_diagram *d = s->d;
    s->frame = xcalloc(d->nelems, 1);
    for (size_t i = 0; i + 1 < d->nelems; i++) {
        const ir_elem *e = &d->elems[i], *t = &d->elems[i + 1];
        if (t->kind != IR_TEXT || t->npts < 2 || t->line != e->line) continue;
        if (e->kind != IR_RECT && e->kind != IR_ELLIPSE && !(e->kind == IR_POLY && e->closed))
            continue;
        ir_box sb = ir_elem_box(e);
        ir_box tb = ir_box_make(t->pts[0].x, t->pts[0].y, t->pts[1].x, t->pts[1].y);
        if (ir_box_inside(tb, sb, 1.0)) s->frame[i] = 1;
    }
}

/* The clip regions, and the one each element is drawn in. */
static void read_clips(geom_scene *s, scene_caps *cap)
{
    const ir_diagram *d = s->d;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind != IR_CLIP) continue;
        GROW(s->clips, s->nclips, cap->clips);
        geom_clip *c = &s->clips[s->nclips++];
        memset(c, 0, sizeof *c);
        c->elem = i;
        c->sub = e->sub;
        c->e = e;
        c->box = ir_elem_box(e);
        c->grown = ir_box_inset(c->box, GEOM_FRAME_TOL_PT);
        c->shrunk = ir_box_inset(c->box, -GEOM_FRAME_TOL_PT);
        if (e->sub == IR_POLY || e->sub == IR_ELLIPSE) {
            ir_elem tmp = *e;
            tmp.kind = e->sub;
            int closed;
            c->n = ir_elem_flatten(&tmp, &c->pts, &closed);
            if (c->n < 3) { free(c->pts); c->pts = NULL; c->n = 0; }
        }
    }
    resolve_clips(s);
}

/* Text element i as a label, unless it is a tick label, hidden by its
 * clip, or empty. */
static void add_text(geom_scene *s, size_t i, scene_caps *cap)
{
    const ir_diagram *d = s->d;
    const ir_elem *e = &d->elems[i];
    if (e->npts < 2) return;
    /* axis tick labels are part of the axes, not labels */
    const geom_attrs *at = &s->attrs[i];
    if (at->role == ROLE_TICK) return;
    /* a text the clip hides entirely is not seen */
    if (text_clipped_away(s, i)) return;
    GROW(s->texts, s->ntexts, cap->texts);
    geom_text *t = &s->texts[s->ntexts];
    memset(t, 0, sizeof *t);
    t->elem = i;
    t->line = e->line;
    t->box = ir_box_make(e->pts[0].x, e->pts[0].y, e->pts[1].x, e->pts[1].y);
    t->c = ir_box_center(t->box);
    if (!ir_parse_num(at->size, &t->size)) t->size = GEOM_DEFAULT_FONT_PT;
    if (!(t->size > 0) || !isfinite(t->size)) t->size = GEOM_DEFAULT_FONT_PT;
    geom_parse_label(e->str, at->tex, t);
    if (t->kind == TXT_EMPTY) return;
    const char *of = at->of;
    if (of && scene_parse_pts(of, &t->of, 1)) t->has_of = 1;
    const char *al = at->along;
    ir_pt ab[2];
    if (al && scene_parse_pts(al, ab, 2)) {
        t->has_along = 1;
        t->along_a = ab[0];
        t->along_b = ab[1];
    }
    t->axis_label = at->role == ROLE_AXIS_LABEL;
    t->opaque = at->filled || (i > 0 && s->frame[i - 1] && s->attrs[i - 1].filled);
    if (i > 0 && s->frame[i - 1]) {
        /* the outline belongs to the label: it takes the label's room */
        t->framed = 1;
        t->frame_box = ir_elem_box(&d->elems[i - 1]);
    }
    ir_box_union(&s->ink, t->box);
    s->ntexts++;
}

/* The face of polyline element i with 3D coordinates xyz (its outline's
 * box eb); returns its signed area when it is filled, else NULL. */
static const double *add_face(geom_scene *s, size_t i, ir_pt3 *xyz, ir_box eb,
                              scene_caps *cap)
{
    const ir_elem *e = &s->d->elems[i];
    const geom_attrs *at = &s->attrs[i];
    GROW(s->faces, s->nfaces, cap->faces);
    geom_face *f = &s->faces[s->nfaces++];
    memset(f, 0, sizeof *f);
    f->elem = i;
    f->line = e->line;
    f->n = e->npts;
    f->p2 = e->pts;
    f->p3 = xyz;
    f->box = eb;
    f->closed = e->closed && e->npts >= 3;
    f->filled = at->filled && f->closed;
    f->stroked = at->stroked;
    f->dashed = at->dashed;
    f->group = 0;
    if (!f->filled) return NULL;
    f->sarea = ir_poly_area(e->pts, e->npts);
    return &f->sarea;
}

/* A closed figure outline (pts, n) of element i as a shape; sarea its
 * signed area when known. */
static void add_shape(geom_scene *s, size_t i, const ir_pt *pts, size_t n, const double *sarea,
                      scene_caps *cap)
{
    const ir_elem *e = &s->d->elems[i];
    GROW(s->shapes, s->nshapes, cap->shapes);
    geom_shape *sh = &s->shapes[s->nshapes++];
    sh->elem = i;
    sh->line = e->line;
    sh->pts = pts;
    sh->n = n;
    sh->area = fabs(sarea ? *sarea : ir_poly_area(pts, n));
    sh->round = e->kind == IR_ELLIPSE;
    sh->centre = e->kind == IR_ELLIPSE ? e->pts[0] : ir_v(0, 0);
    sh->radius = e->kind == IR_ELLIPSE ? (ir_v_len(e->pts[1]) + ir_v_len(e->pts[2])) / 2 : 0;
}

/* A drawn element i (polyline, rectangle, ellipse, arc, curve): a vertex
 * dot, or its outline broken into segments, with its face when it has 3D
 * coordinates and its shape when it closes a figure region. */
static void add_drawn(geom_scene *s, size_t i, scene_caps *cap)
{
    const ir_elem *e = &s->d->elems[i];
    const geom_attrs *at = &s->attrs[i];
    if (!at->stroked && !at->filled) return;
    if (at->xyz) s->is3d = 1;
    if (is_dot(e, at)) {
        GROW(s->dots, s->ndots, cap->dots);
        s->dots[s->ndots++] = e->npts ? e->pts[0] : ir_v(0, 0);
        ir_box_union(&s->ink, ir_elem_box(e));
        return;
    }
    geom_seg_class cls = s->frame[i] ? SEG_FRAME : scene_elem_class(at);
    /* the outline: a polyline's own points, else flattened */
    const ir_pt *pts;
    int closed;
    size_t n;
    if (e->kind == IR_POLY) {
        pts = e->pts;
        n = e->npts;
        closed = e->closed;
    } else {
        /* flattened into the scene's memory, kept for the checks */
        size_t cnt = ir_elem_flatten_count(e);
        ir_pt *fl = cnt ? geom_scene_alloc(s, cnt * sizeof *fl) : NULL;
        n = cnt ? ir_elem_flatten_to(e, fl, &closed) : 0;
        pts = fl;
        s->flat[i] = fl;
        s->nflat[i] = n;
    }
    if (n == 0) return;
    ir_box eb = ir_box_empty();   /* the outline's box */
    for (size_t k = 0; k < n; k++) ir_box_add(&eb, pts[k].x, pts[k].y);
    int curved = e->kind == IR_ELLIPSE || e->kind == IR_ARC || e->kind == IR_CURVE;
    ir_pt3 *xyz = NULL;   /* the 3D coordinates, kept for the face */
    const double *face_sarea = NULL;   /* its face's signed area (pts, n) */
    if (e->kind == IR_POLY && at->xyz) {
        ir_pt3 *p3 = geom_scene_alloc(s, e->npts * sizeof *p3);
        if (parse_xyz(at->xyz, e->npts, p3)) xyz = p3;
    }
    if (xyz && cls != SEG_FRAME) face_sarea = add_face(s, i, xyz, eb, cap);
    for (size_t k = 0; k + 1 < n; k++)
        add_seg(s, &cap->segs, e, i, pts[k], pts[k + 1], cls, curved,
                xyz ? xyz + k : NULL, xyz ? xyz + (k + 1) : NULL);
    if (closed && n > 2)
        add_seg(s, &cap->segs, e, i, pts[n - 1], pts[0], cls, curved,
                xyz ? xyz + (n - 1) : NULL, xyz ? xyz : NULL);
    ir_box_union(&s->ink, eb);
    if (cls == SEG_FIGURE) ir_box_union(&s->figure, eb);
    /* closed regions */
    if (cls == SEG_FIGURE && n >= 3 &&
        (closed || (e->kind == IR_POLY && n > 3 && ir_v_dist(pts[0], pts[n - 1]) <= GEOM_JOIN_EPS_PT)))
        add_shape(s, i, pts, n, face_sarea, cap);
}

/* The visible extent stops at the clip. */
static void clip_extents(geom_scene *s)
{
    if (s->nclips == 0 || s->clips[0].box.empty) return;
    ir_box inter = ir_box_isect(s->ink, s->clips[0].box);
    if (!inter.empty) s->ink = inter;
    inter = ir_box_isect(s->figure, s->clips[0].box);
    if (!inter.empty) s->figure = inter;
}

/* Depth: cube lattices recovered from the picture, the projection of the
 * 3D coordinates, and which side of it the viewer is on. */
static void find_depth(geom_scene *s)
{
    geom_infer_lattice(s);
    fit_projection(s);
    if (s->has_proj && s->nfaces && s->faces[0].inferred) {
        int side = geom_lattice_viewer_side(s);
        if (side < 0) {
            s->view.x = -s->view.x;
            s->view.y = -s->view.y;
            s->view.z = -s->view.z;
        } else if (side == 0) {
            s->has_proj = 0;
        }
    }
}

/* An unknown ("?", "x") written inside an angle arc names the angle. */
static void name_arc_unknowns(geom_scene *s)
{
    for (size_t i = 0; i < s->ntexts; i++) {
        geom_text *t = &s->texts[i];
        if (t->kind != TXT_VAR) continue;
        for (size_t k = 0; k < s->nmarks; k++) {
            const geom_mark *m = &s->marks[k];
            if (m->kind != MARK_ARC || !m->has_vertex) continue;
            double dv = ir_v_dist(t->c, m->vertex);
            if (dv > m->size + 2 * geom_em(t)) continue;
            double dir = ir_v_dir_deg(ir_v_sub(t->c, m->vertex));
            double span = ir_ccw_sweep_deg(m->d1, m->d2);
            if (ir_ccw_sweep_deg(m->d1, dir) <= span + GEOM_ARC_LABEL_DEG ||
                ir_ccw_sweep_deg(dir, m->d1) <= GEOM_ARC_LABEL_DEG) {
                t->kind = TXT_ANGLE_NAME;
                break;
            }
        }
    }
}

/* How far from a named node's centre (coord record q) its border may lie:
 * half the diagonal of the text box or drawn outline around q, plus half
 * an em and 1pt (a node's inner and outer sep); half an em and 1pt for a
 * node with neither. */
static double node_reach(const geom_scene *s, ir_pt q)
{
    const ir_diagram *d = s->d;
    double em = GEOM_DEFAULT_FONT_PT, half = 0;
    for (size_t k = 0; k < s->ntexts; k++) {
        const geom_text *t = &s->texts[k];
        if (!ir_box_contains_pt(t->box, q)) continue;
        double h = 0.5 * hypot(ir_box_w(t->box), ir_box_h(t->box));
        if (h > half) { half = h; em = geom_em(t); }
    }
    for (size_t k = 0; k < d->nelems; k++) {
        const ir_elem *e = &d->elems[k];
        if (e->kind != IR_RECT && e->kind != IR_ELLIPSE && !(e->kind == IR_POLY && e->closed)) continue;
        ir_box b = ir_elem_box(e);
        if (b.empty || ir_v_dist(ir_box_center(b), q) > 1) continue;
        double h = 0.5 * hypot(ir_box_w(b), ir_box_h(b));
        if (h > half) half = h;
    }
    return half + 0.5 * em + 1;
}

/* node_reach of the coords entry c, worked out once (few are ever asked:
 * the ones lines are aimed at, and those inside a text) */
static double coord_reach(const geom_scene *s, size_t c)
{
    if (s->coord_reach[c] < 0) s->coord_reach[c] = node_reach(s, s->d->elems[s->coords[c]].pts[0]);
    return s->coord_reach[c];
}

size_t geom_end_on_node(const geom_scene *s, ir_pt p, ir_pt from)
{
    const ir_diagram *d = s->d;
    ir_pt u = ir_v_sub(p, from);
    double L = ir_v_len(u);
    if (!(L > 0)) return 0;
    for (size_t c = 0; c < s->ncoords; c++) {
        size_t i = s->coords[c];
        ir_pt q = d->elems[i].pts[0];
        double dq = ir_v_dist(p, q);
        if (dq <= 1.5 * GEOM_JOIN_EPS_PT) continue;   /* at the point itself */
        ir_pt w = ir_v_sub(q, from);
        if (ir_v_dot(w, u) <= L * L) continue;         /* not beyond the end */
        if (fabs(ir_v_cross(u, w)) / L > 0.75 + 0.02 * dq) continue;   /* not aimed at it */
        if (dq <= coord_reach(s, c)) return i + 1;
    }
    return 0;
}

/* A named node's text with lines ending on the node's border
 * (geom_end_on_node) belongs to the node's centre (as of= says); a number
 * there names a vertex of a graph: it states no length, area or angle. */
static void name_node_texts(geom_scene *s)
{
    const ir_diagram *d = s->d;
    size_t n = 0;
    for (size_t i = 0; i < d->nelems; i++)
        if (d->elems[i].kind == IR_COORD && d->elems[i].npts >= 1 && d->elems[i].name) n++;
    if (n == 0) return;
    s->coords = geom_scene_alloc(s, n * sizeof *s->coords);
    s->coord_reach = geom_scene_alloc(s, n * sizeof *s->coord_reach);
    for (size_t i = 0; i < d->nelems; i++)
        if (d->elems[i].kind == IR_COORD && d->elems[i].npts >= 1 && d->elems[i].name) {
            s->coord_reach[s->ncoords] = -1;   /* worked out when first asked */
            s->coords[s->ncoords++] = i;
        }
    size_t *near = NULL, ncap = 0;
    /* a text's node: a coord inside its box (few texts hold one) */
    for (size_t k = 0; k < s->ntexts; k++) {
        geom_text *t = &s->texts[k];
        if (t->has_of) continue;
        size_t node = 0, c = 0;
        for (; c < s->ncoords; c++)
            if (ir_box_contains_pt(t->box, d->elems[s->coords[c]].pts[0])) { node = s->coords[c] + 1; break; }
        if (!node) continue;
        /* the lines that end within the node's reach */
        ir_pt q = d->elems[node - 1].pts[0];
        double r = coord_reach(s, c);
        size_t nn = geom_segs_near(s, ir_box_inset(ir_box_make(q.x, q.y, q.x, q.y), r), &near, &ncap);
        for (size_t jj = 0; jj < nn; jj++) {
            const geom_seg *g = &s->segs[near[jj]];
            if ((g->cls != SEG_FIGURE && g->cls != SEG_DIM) || !g->visible || !(g->len > 0)) continue;
            if (geom_end_on_node(s, g->b, g->a) != node && geom_end_on_node(s, g->a, g->b) != node)
                continue;
            t->has_of = 1;
            t->of = q;
            if (t->kind == TXT_LENGTH || t->kind == TXT_AREA || t->kind == TXT_ANGLE || t->kind == TXT_VAR)
                t->kind = TXT_NAME;
            break;
        }
    }
    free(near);
}

geom_scene *geom_scene_build(const ir_diagram *d)
{
    scene_priv *p = xcalloc(1, sizeof *p);
    ir_arena_init(&p->arena, 16384);
    geom_scene *s = &p->pub;
    s->d = d;
    const char *src = ir_get_attr(d->attrs, d->nattrs, "src");
    s->src = src ? src : (d->id ? d->id : "-");
    s->ink = ir_box_empty();
    s->figure = ir_box_empty();
    scene_caps cap = {0, 0, 0, 0, 0, 0, 0};

    read_all_attrs(s);
    size_arrays(s, &cap);
    find_frames(s);
    read_clips(s, &cap);
    for (size_t i = 0; i < d->nelems; i++) {
        ir_kind k = d->elems[i].kind;
        if (k == IR_TEXT) add_text(s, i, &cap);
        else if (k == IR_POLY || k == IR_RECT || k == IR_ELLIPSE || k == IR_ARC || k == IR_CURVE)
            add_drawn(s, i, &cap);
    }
    clip_extents(s);
    /* the grid over the segments is built on first use (geom_segs_near) */
    find_depth(s);

    /* corner candidates come from the lines as they are before marks are
     * found (need_cand) */
    p->cls_frozen = 1;   /* from here on a class changes after snapshot_cls */
    scene_find_marks(s, &cap.marks);
    scene_find_ticks(s);
    name_arc_unknowns(s);
    name_node_texts(s);
    scene_mark_shared(s);
    /* the segments' components (comp, ncomps) are found on first use:
     * geom_need_comps */
    return s;
}

void geom_scene_free(geom_scene *s)
{
    if (!s) return;
    scene_priv *p = scene_priv_of(s);
    free(s->shapes);
    free(s->segs);
    free(s->texts);
    free(s->marks);
    for (size_t i = 0; i < s->nclips; i++) free(s->clips[i].pts);
    free(s->clips);
    free(s->clip_of);
    free(s->dots);
    free(s->frame);
    free(s->attrs);
    free(s->flat);
    free(s->nflat);
    free(s->faces);
    free(p->cand.p);
    ir_arena_free(&p->arena);
    free(p->corner);
    free(p->cls0);
    scene_grid_free(&p->grid);
    scene_grid_free(&p->rays);
    ir_box_index_free(&p->cand_ix);
    ir_box_index_free(&p->coord_ix);
    ir_box_index_free(&p->name_ix);
    free(p->coord_el);
    free(p->name_tx);
    free(p);
}
