/* solid.c — 3D positions of unit-cube drawings, recovered from the picture.
 *
 * Stacks of unit cubes are drawn in parallel projection as faces that are
 * parallelograms whose sides are copies of just three picture vectors, the
 * images of the cube's three edges. Every corner then lies on the lattice
 *     origin + i e1 + j e2 + k e3    (i, j, k whole numbers),
 * and (i, j, k) are the corner's 3D coordinates up to the choice of axes.
 * Which way the third axis points (toward or away from the viewer) the
 * picture alone leaves open (the Necker cube); the drawn faces settle it:
 * a cube shows the three faces around its corner nearest the viewer, so
 * from the cube's far corner toward that shared corner is toward the viewer.
 *
 * When the IR carries no 3D coordinates, geom_infer_lattice fills the
 * scene's faces this way, so that the depth-order rule of no-overlap can
 * judge cube drawings too. It gives up (leaving the scene as it was) unless
 * the drawing is unmistakably such a lattice.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "ir/xalloc.h"

#define MAXDIR 8

typedef struct {
    ir_pt v;       /* representative vector, canonical sign */
    int n;
} edir;

/* canonical sign: pointing into the half plane of angles [0, 180) */
static ir_pt canon(ir_pt v)
{
    if (v.y < 0 || (v.y == 0 && v.x < 0)) return ir_v(-v.x, -v.y);
    return v;
}

/* Same direction (either way); lengths may differ: longer sides (an
 * outline around a block of cubes) are whole multiples of the cube edge. */
static int same_vec(ir_pt a, ir_pt b)
{
    double la = ir_v_len(a), lb = ir_v_len(b);
    if (la <= 0 || lb <= 0) return 0;
    return ir_line_diff_deg(ir_v_dir_deg(a), ir_v_dir_deg(b)) <= GEOM_COLLINEAR_DEG;
}

static int find_dir(const edir *d, int nd, ir_pt v)
{
    ir_pt c = canon(v);
    for (int i = 0; i < nd; i++)
        if (same_vec(d[i].v, c)) return i;
    return -1;
}

/* P - o = i e1 + j e2 + k e3 with whole i, j, k, the smallest |i|+|j|+|k|.
 * For each k the real (i, j) follow linearly: i = i0 - k ai, j = j0 - k aj. */
static int lattice_coords(ir_pt d, const ir_pt e[3], int kmax, int out[3])
{
    double det = e[0].x * e[1].y - e[0].y * e[1].x;
    if (fabs(det) < 1e-9) return 0;
    double i0 = (d.x * e[1].y - d.y * e[1].x) / det, j0 = (e[0].x * d.y - e[0].y * d.x) / det;
    double ai = (e[2].x * e[1].y - e[2].y * e[1].x) / det, aj = (e[0].x * e[2].y - e[0].y * e[2].x) / det;
    double l0 = sqrt(e[0].x * e[0].x + e[0].y * e[0].y), l1 = sqrt(e[1].x * e[1].x + e[1].y * e[1].y);
    double l2 = sqrt(e[2].x * e[2].x + e[2].y * e[2].y);
    double tol = GEOM_LATTICE_REL * fmin(fmin(l0, l1), l2) + GEOM_LATTICE_ABS;
    int found = 0, best = 0;
    for (int k = -kmax; k <= kmax; k++) {
        double i = i0 - k * ai, j = j0 - k * aj;
        double ri = round(i), rj = round(j);
        /* far off the lattice of a drawing (or NaN): no int for it */
        if (!(fabs(ri) < 1e6 && fabs(rj) < 1e6)) continue;
        /* the picture-space miss of the rounded point */
        double mx = (i - ri) * e[0].x + (j - rj) * e[1].x, my = (i - ri) * e[0].y + (j - rj) * e[1].y;
        if (mx * mx + my * my > tol * tol) continue;
        int cost = abs((int)ri) + abs((int)rj) + abs(k);
        if (!found || cost < best) {
            best = cost;
            out[0] = (int)ri;
            out[1] = (int)rj;
            out[2] = k;
            found = 1;
        }
    }
    return found;
}

void geom_infer_lattice(geom_scene *s)
{
    const ir_diagram *d = s->d;
    if (s->nfaces > 0) return;                 /* the IR gave 3D coordinates */
    /* candidate faces: closed four-sided figure outlines */
    size_t *fe = xmalloc((d->nelems + 1) * sizeof *fe);
    size_t nf = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (s->frame[i] || e->kind != IR_POLY || !e->closed || e->npts != 4) continue;
        if (s->attrs[i].role != ROLE_NONE) continue;
        fe[nf++] = i;
    }
    if (nf < 6) { free(fe); return; }          /* at least two cubes' worth */

    /* the picture vectors of the faces' sides */
    edir dir[MAXDIR];
    int nd = 0, total = 0, odd = 0;
    for (size_t f = 0; f < nf; f++) {
        const ir_elem *e = &d->elems[fe[f]];
        for (int k = 0; k < 4; k++) {
            ir_pt v = ir_v_sub(e->pts[(k + 1) % 4], e->pts[k]);
            total++;
            int j = find_dir(dir, nd, v);
            if (j >= 0) {
                /* keep the shortest as the cube edge */
                if (ir_v_len(v) < ir_v_len(dir[j].v)) dir[j].v = canon(v);
                dir[j].n++;
                continue;
            }
            if (nd < MAXDIR) { dir[nd].v = canon(v); dir[nd].n = 1; nd++; }
            else odd++;
        }
    }
    /* exactly three side vectors, covering (nearly) every side */
    int top[3] = {-1, -1, -1};
    for (int i = 0; i < nd; i++) {
        if (top[0] < 0 || dir[i].n > dir[top[0]].n) { top[2] = top[1]; top[1] = top[0]; top[0] = i; }
        else if (top[1] < 0 || dir[i].n > dir[top[1]].n) { top[2] = top[1]; top[1] = i; }
        else if (top[2] < 0 || dir[i].n > dir[top[2]].n) top[2] = i;
    }
    if (top[2] < 0) { free(fe); return; }
    int covered = dir[top[0]].n + dir[top[1]].n + dir[top[2]].n;
    if (odd > 0 || covered < total * 95 / 100) { free(fe); return; }
    ir_pt e3v[3] = {dir[top[0]].v, dir[top[1]].v, dir[top[2]].v};
    /* no two of them parallel */
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (ir_line_diff_deg(ir_v_dir_deg(e3v[a]), ir_v_dir_deg(e3v[b])) < GEOM_AXES_DISTINCT_DEG) {
                free(fe);
                return;
            }

    /* every corner on the lattice; no corner is farther from the origin
     * along the third edge than the drawing is large */
    ir_pt origin = d->elems[fe[0]].pts[0];
    ir_box ext = ir_box_empty();
    for (size_t f = 0; f < nf; f++)
        for (int k = 0; k < 4; k++) ir_box_add(&ext, d->elems[fe[f]].pts[k].x, d->elems[fe[f]].pts[k].y);
    double diag = sqrt(ir_box_w(ext) * ir_box_w(ext) + ir_box_h(ext) * ir_box_h(ext));
    double km = ceil(diag / ir_v_len(e3v[2])) + 1;   /* clamped before the cast */
    int kmax = km >= 0 ? (km < 200 ? (int)km : 200) : 0;
    size_t cap = 0;
    for (size_t f = 0; f < nf; f++) {
        const ir_elem *e = &d->elems[fe[f]];
        int c[4][3], ok = 1;
        for (int k = 0; k < 4 && ok; k++) ok = lattice_coords(ir_v_sub(e->pts[k], origin), e3v, kmax, c[k]);
        if (!ok) continue;
        if (s->nfaces >= cap) {
            cap = cap ? 2 * cap : 64;
            s->faces = xrealloc(s->faces, cap * sizeof *s->faces);
        }
        geom_face *g = &s->faces[s->nfaces++];
        memset(g, 0, sizeof *g);
        g->elem = fe[f];
        g->line = e->line;
        g->n = 4;
        g->p2 = e->pts;
        g->p3 = geom_scene_alloc(s, 4 * sizeof *g->p3);
        g->box = ir_box_empty();
        for (int k = 0; k < 4; k++) {
            g->p3[k].x = c[k][0];
            g->p3[k].y = c[k][1];
            g->p3[k].z = c[k][2];
            ir_box_add(&g->box, e->pts[k].x, e->pts[k].y);
        }
        const geom_attrs *at = &s->attrs[fe[f]];
        g->filled = at->filled;
        if (g->filled) g->sarea = ir_poly_area(g->p2, g->n);
        g->stroked = at->stroked;
        g->dashed = at->dashed;
        g->closed = 1;
        g->inferred = 1;
    }
    free(fe);
}

/* The side of the viewer, from the faces drawn: three consecutive faces
 * meeting at one corner show a cube from that corner. Returns +1 when
 * the view direction is right as fitted, -1 when it must be flipped, 0
 * when the drawing does not say. */
int geom_lattice_viewer_side(const geom_scene *s)
{
    int plus = 0, minus = 0;
    for (size_t f = 0; f + 2 < s->nfaces; f++) {
        const geom_face *a = &s->faces[f], *b = &s->faces[f + 1], *c = &s->faces[f + 2];
        if (!a->inferred || a->line != b->line || b->line != c->line) continue;
        /* the corner all three share */
        int found = 0;
        ir_pt3 V = {0, 0, 0};
        for (size_t i = 0; i < 4 && !found; i++) {
            ir_pt3 p = a->p3[i];
            int inb = 0, inc = 0;
            for (size_t j = 0; j < 4; j++) {
                inb |= b->p3[j].x == p.x && b->p3[j].y == p.y && b->p3[j].z == p.z;
                inc |= c->p3[j].x == p.x && c->p3[j].y == p.y && c->p3[j].z == p.z;
            }
            if (inb && inc) { V = p; found = 1; }
        }
        if (!found) continue;
        /* the far corner: V plus the three edges leaving it */
        ir_pt3 sum = {0, 0, 0};
        const geom_face *fs[3] = {a, b, c};
        for (int q = 0; q < 3; q++)
            for (size_t j = 0; j < 4; j++) {
                ir_pt3 p = fs[q]->p3[j];
                double dx = p.x - V.x, dy = p.y - V.y, dz = p.z - V.z;
                if (fabs(dx) + fabs(dy) + fabs(dz) == 1) { sum.x += dx; sum.y += dy; sum.z += dz; }
            }
        /* each edge leaving V is counted by the two faces holding it */
        double dot = -(sum.x * s->view.x + sum.y * s->view.y + sum.z * s->view.z);
        if (dot > 1e-9) plus++;
        else if (dot < -1e-9) minus++;
        f += 2;
    }
    if (plus > 0 && plus >= 4 * minus) return 1;
    if (minus > 0 && minus >= 4 * plus) return -1;
    return 0;
}
