/* request.h — what a teacher's request says the diagram must show.
 *
 * The request is the text a diagram was made for ("right triangle,
 * hypotenuse x, adjacent side 17.3, angle 37 degrees", "cube tower, 4 cubes
 * stacked vertically", "7 x 4 x 3 prism split into 5 x 4 x 3 plus 2 x 4 x
 * 3"). geom_request_parse reads what it states, deterministically, in the
 * language such requests are written in: the kinds of shape named, their
 * qualities (right, isosceles, ...), dimensions "A x B x C" / "A by B" / "A
 * cubes long, B wide, C tall", triangle sides "sides a, b, c", angles in
 * degrees, and the number of unit cubes it asks for. What it cannot read it
 * leaves out (a count it cannot be sure of is unknown, 0): the checks
 * (core_math.c, shape_closed.c) judge only what was read.
 *
 * The parser keeps no state and allocates nothing; any byte string is
 * accepted (tests/fuzz/fuzz_request.c).
 */
#ifndef DIAGRAMIR_CHECKS_GEOM_REQUEST_H
#define DIAGRAMIR_CHECKS_GEOM_REQUEST_H

#include <stddef.h>

/* Kinds of shape the request names (geom_request.kinds). */
enum {
    RQ_TRIANGLE = 1 << 0,
    RQ_RECTANGLE = 1 << 1,
    RQ_SQUARE = 1 << 2,
    RQ_CIRCLE = 1 << 3,
    RQ_POLYGON = 1 << 4,    /* quadrilateral, parallelogram, trapezoid, pentagon, hexagon */
    RQ_PRISM = 1 << 5,      /* rectangular prism (a box) */
    RQ_CUBE = 1 << 6,       /* a cube, or unit cubes */
    RQ_CYLINDER = 1 << 7,
    RQ_CONE = 1 << 8,
    RQ_PYRAMID = 1 << 9,
    RQ_SPHERE = 1 << 10,
    RQ_NET = 1 << 11,       /* a net (the faces unfolded flat) */
    RQ_PLANE = 1 << 12      /* a coordinate plane or grid */
};

/* Qualities stated (geom_request.props). */
enum {
    RQ_RIGHT = 1 << 0,       /* right triangle, right angle */
    RQ_ISOSCELES = 1 << 1,
    RQ_EQUILATERAL = 1 << 2,
    RQ_PARALLEL = 1 << 3,
    RQ_EQUAL = 1 << 4,       /* equal sides or parts */
    RQ_COMPOSITE = 1 << 5,   /* several solids put together, split or cut */
    RQ_OVERLAP = 1 << 6,     /* parts overlapping or crossing */
    RQ_UNIT_CUBES = 1 << 7,  /* made of (unit) cubes */
    RQ_STACKED = 1 << 8,     /* parts one above another: "on top", "underneath",
                                "below", "stacked" */
    RQ_DIVIDED = 1 << 9      /* a shape split, divided or (de)composed into parts */
};

#define RQ_MAX 8   /* at most this many of each list are kept */

/* Fields of geom_request (geom_request.llm: the ones a model filled,
 * request_llm.h). */
enum {
    RQF_KINDS = 1 << 0,
    RQF_PROPS = 1 << 1,
    RQF_CUBES = 1 << 2,
    RQF_SOLIDS = 1 << 3,
    RQF_FLATS = 1 << 4,
    RQF_SIDES = 1 << 5,
    RQF_ANGLES = 1 << 6
};

/* Dimensions as stated: n numbers (2 or 3), the unit written with the
 * first ("cm", "in", "units", "cubes"; "" when none). */
typedef struct {
    double v[3];
    int n;
    int lwh;        /* v is length, width, height, as named ("4 cubes long, 3
                       wide, 5 tall"); else in the order written */
    char unit[8];
} geom_rq_dims;

typedef struct {
    unsigned kinds;          /* RQ_TRIANGLE | ... */
    unsigned props;          /* RQ_RIGHT | ... */
    long ncubes;             /* unit cubes asked for; 0 unknown */
    geom_rq_dims solids[RQ_MAX];   /* "A x B x C" */
    int nsolids;
    geom_rq_dims flats[RQ_MAX];    /* "A x B", "A by B" */
    int nflats;
    geom_rq_dims sides[RQ_MAX];    /* a triangle's "sides a, b, c" */
    int nsides;
    double angles[RQ_MAX];   /* angles stated in degrees */
    int nangles;
    unsigned llm;            /* RQF_* read by a model, not the parser (src=llm);
                                0 from geom_request_parse */
} geom_request;

/* Reads text (NUL-terminated UTF-8; anything is accepted) into *r. */
void geom_request_parse(const char *text, geom_request *r);

/* A one-line account of *r ("kinds=triangle props=right angles=37 ...",
 * then " src=llm:angles,..." naming the fields a model filled),
 * always NUL-terminated; returns the length it would have (snprintf). */
size_t geom_request_describe(const geom_request *r, char *buf, size_t n);

/* The names describe prints for the bits of kinds and props, bit i at
 * index i, NULL-terminated. */
extern const char *const geom_rq_kind_names[];
extern const char *const geom_rq_prop_names[];

/* "5 x 4 x 3 in" as the request wrote the dimensions, into buf. */
const char *geom_rq_dims_show(const geom_rq_dims *d, char *buf, size_t n);

#endif
