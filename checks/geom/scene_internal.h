/* scene_internal.h — what the files of the scene (scene.c, scene_index.c,
 * scene_corners.c, scene_marks.c, scene_joins.c) share and the checks do
 * not: the scene's private part and the helpers one file lends another. */
#ifndef DIAGRAMIR_GEOM_SCENE_INTERNAL_H
#define DIAGRAMIR_GEOM_SCENE_INTERNAL_H

#include <stddef.h>

#include "checks/geom/geom.h"
#include "ir/arena.h"
#include "ir/box_index.h"
#include "ir/xalloc.h"

/* Makes room in array arr of cap elements for element n (doubling). */
#define GROW(arr, n, cap)                                                     \
    do {                                                                      \
        if ((n) >= (cap)) {                                                   \
            (cap) = (cap) ? (cap) * 2 : 16;                                   \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                   \
        }                                                                     \
    } while (0)

/* A hash of points on a grid of cells 2 GEOM_JOIN_EPS_PT wide: every point
 * within GEOM_JOIN_EPS_PT of a query lies in the query's cell or the
 * neighbouring ones toward the nearer cell edges (2 x 2 cells; 3 when the
 * query is about midway in a cell, where rounding could go either way). */
typedef struct {
    unsigned bits;
    unsigned *head;        /* per bucket: first entry + 1, 0 empty */
    unsigned *next;        /* per entry: next entry + 1 in its bucket */
    long long *cx, *cy;    /* per entry: its cell */
    size_t n;
} pt_hash;

#define PH_CELL (2 * GEOM_JOIN_EPS_PT)

void pt_hash_init(pt_hash *h, size_t cap);   /* room for cap entries */
void pt_hash_free(pt_hash *h);
/* The cell of coordinate v; *frac (when asked) its place in the cell, 0 to 1. */
long long pt_hash_cell(double v, double *frac);
size_t pt_hash_bucket(const pt_hash *h, long long cx, long long cy);
void pt_hash_add(pt_hash *h, ir_pt p);
int pt_hash_near(const pt_hash *h, ir_pt p, int (*fn)(size_t, void *), void *arg);

/* A growing list of points. */
typedef struct {
    ir_pt *p;
    size_t n, cap;
} ptlist;

/* A uniform grid over the segments, for "which segments are near here". */
typedef struct {
    geom_grid_plan pl;   /* cells: size, origin, counts */
    size_t *start;       /* nx * ny + 1 offsets into idx */
    size_t *idx;
    int (*range)[4];     /* per segment: its cells i0, j0, i1, j1 */
    unsigned *stamp;     /* per segment: last query that returned it */
    unsigned cur;
} seg_grid;

/* A scene and what only its own files see: its memory, and the parts
 * found on first use (the segment grid, the corner candidates, the
 * components). */
typedef struct {
    geom_scene pub;
    ir_arena arena;    /* geom_scene_alloc's memory (ir/arena.h) */
    int grid_done;     /* the grid is built on first use */
    ptlist cand;       /* endpoints and crossings of straight figure lines */
    signed char *corner; /* per candidate: -1 unknown, 0 no, 1 yes */
    int comps_done;    /* components() has run (geom_need_comps) */
    int cls_frozen;    /* cls0 must be kept before a class changes */
    int cand_done;     /* cand is computed on first use ... */
    unsigned char *cls0; /* ... from the classes segments had before marks
                            (NULL while no class has changed since: then
                            the classes are those; snapshot_cls) */
    seg_grid grid;
    int rays_done;     /* the grid over the rays is built on first use */
    seg_grid rays;
    int cand_ix_done;  /* an index over cand, built on first use */
    ir_box_index cand_ix;
    int names_done;    /* indexes for geom_point_name, built on first use: */
    ir_box_index coord_ix;   /* over the coord elements (coord_el[k]) */
    size_t *coord_el;
    ir_box_index name_ix;    /* over the name texts (name_tx[k]) */
    size_t *name_tx;
    unsigned long long work;  /* pairs examined so far (geom_spend) */
    int over;          /* past GEOM_MAX_WORK: the queries answer nothing */
} scene_priv;

/* The private part of a scene geom_scene_build made (its pub member). */
static inline scene_priv *scene_priv_of(const geom_scene *s)
{
    return (scene_priv *)(void *)s;
}

/* A segment's box grown by grow on each side. */
static inline ir_box seg_box(const geom_seg *g, double grow)
{
    ir_box b;
    b.x1 = (g->a.x < g->b.x ? g->a.x : g->b.x) - grow;
    b.x2 = (g->a.x < g->b.x ? g->b.x : g->a.x) + grow;
    b.y1 = (g->a.y < g->b.y ? g->a.y : g->b.y) - grow;
    b.y2 = (g->a.y < g->b.y ? g->b.y : g->a.y) + grow;
    b.empty = 0;
    return b;
}

/* The segment grid, built on first use (scene_index.c). */
void scene_need_grid(scene_priv *p);
/* geom_segs_near's answer, less segments that were not rays (ray_seg) when
 * first asked: a superset of the rays, in geom_segs_near's order. */
size_t scene_rays_near(const geom_scene *s, ir_box b, size_t **buf, size_t *cap);
void scene_grid_free(seg_grid *g);

/* A vertex dot: role=vertex, or a small filled ellipse (scene.c). */
int scene_is_dot(const ir_elem *e, const geom_attrs *a);

/* A straight line of the figure (or a dimension line): what rays run along. */
static inline int ray_seg(const geom_seg *g)
{
    return (g->cls == SEG_FIGURE || g->cls == SEG_DIM) && !g->curved;
}

/* The directions (degrees, sorted, near-equal ones merged) of the rays
 * leaving v along straight figure lines of at least min_len, not of
 * element excl; at most max (scene_corners.c). */
size_t scene_rays_excl(const geom_scene *s, ir_pt v, double min_len, double *dirs, size_t max,
                       size_t excl);
/* 1 when two rays leave v at an angle between 3 and 177 degrees. */
int scene_is_corner(const geom_scene *s, ir_pt v);

/* "X,Y" or "X1,Y1,X2,Y2" into max points; 0 when malformed (scene.c). */
int scene_parse_pts(const char *s, ir_pt *out, size_t max);
geom_seg_class scene_elem_class(const geom_attrs *a);

/* The marks and ticks the front end did not tag (scene_marks.c). */
void scene_find_marks(geom_scene *s, size_t *mcap);
void scene_find_ticks(geom_scene *s);

/* shared[] of the figure segments' ends (scene_joins.c). */
void scene_mark_shared(geom_scene *s);

#endif
