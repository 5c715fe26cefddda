/* ir.h — the diagramir intermediate representation: types, reader, writer.
 *
 * This header is the whole contract of the IR library (a program may also
 * borrow diagrams from the reader: ir/ir_borrow.h).
 *
 * Memory, the one rule: a diagram owns everything reachable from it, and
 * ir_diagram_free frees it all; an element outside any diagram
 * (ir_elem_copy) owns what is reachable from it until ir_elem_clear.
 * Strings and arrays handed to the library are copied. A pointer the
 * library hands out (an attribute value, e->pts, e->attrs) stays valid
 * until the diagram is freed or the element cleared; element pointers
 * (ir_add) until the next ir_add or ir_add_copy on the diagram.
 *   - Points and attributes are set only through ir_elem_set_pts and
 *     ir_elem_set: they live in the diagram's memory (ir_elem.mem).
 *   - e->str, e->name and e->raw are malloc'd strings the element owns; a
 *     program may free one and put another malloc'd string in its place.
 *   - A diagram's own attributes (d->attrs) are an ir_set_attr array.
 * Out of memory ends the program with exit status 2, everywhere.
 *
 * The textual form is specified normatively in man/diagramir.5; a summary:
 *
 *   diagramir 1                         stream header (may repeat: cat a.ir b.ir works)
 *   diagram ID key=val...               starts a record (ID: no spaces; src=FILE)
 *   unit pt                             coordinates are TeX points, y up
 *   bbox X1 Y1 X2 Y2                    ink extent of what is visibly drawn (after clips)
 *   clip rect X1 Y1 X2 Y2  [attrs] @L   a clip region: "clip" + a rect, poly or
 *                                       ellipse record (clip poly closed X Y ...)
 *   poly open|closed X Y X Y ... [attrs] @L     polyline / polygon (>= 2 points)
 *   rect X1 Y1 X2 Y2 [attrs] @L         axis-aligned rectangle (after transform)
 *   ellipse CX CY AX AY BX BY [attrs] @L     ellipse: C + A cos t + B sin t
 *   arc CX CY AX AY BX BY T1 T2 [attrs] @L   elliptic arc, t from T1 to T2 degrees
 *   curve X0 Y0 X1 Y1 X2 Y2 X3 Y3 [attrs] @L cubic Bezier
 *   text X1 Y1 X2 Y2 "PLAIN" [attrs] @L  text box (lower-left, upper-right) and plain text
 *   unparsed "SOURCE" @L                 a construct the front end could not evaluate
 *   vertex ID X1 Y1 X2 Y2 "TEXT" [attrs] @L   graph node (svg2graph)
 *   edge FROM TO [undirected] [attrs] @L       graph edge (svg2graph)
 *   coord NAME X Y [attrs] @L           a named point (TikZ coordinate or node centre)
 *   end                                 ends the record
 *
 * Attributes are key=value words after the geometry; values with spaces or
 * quotes are written as "..." with \" and \\ escapes. Unknown record kinds
 * and unknown keys are preserved (forward compatibility). "@L" is the
 * 1-based source line the element came from (0: unknown).
 *
 * Well-known attributes (all optional):
 *   draw=COLOR|none  fill=COLOR|none  lw=PT  dash=solid|dashed|dotted|...
 *   arrows=<->|->|<-  role=vertex|right-angle|angle-mark|grid|axis|label|...
 *   id=NAME (TikZ node name)  at=X,Y (text anchor point)  anchor=north|...
 *   size=PT (font size)  tex=TEX-SOURCE (text)  src=tikz|llm
 *   xyz=X,Y,Z;X,Y,Z;... (3D coordinates of poly points, when 3D input)
 *
 * What tikz2ir emits (the checks in checks/ rely on it):
 *   - every drawn/filled path piece as poly/rect/ellipse/arc/curve with draw= and
 *     fill= (none when not stroked/filled); \path without draw/fill is not emitted;
 *   - node shapes that are drawn or filled (vertex dots: ellipse role=vertex);
 *   - node text as text (empty nodes give no text) with at=, anchor=, size=, tex=,
 *     id= (node name); a node placed on a path segment carries along=X1,Y1,X2,Y2
 *     (the segment or curve chord it sits on) and pos=T; label=/pin= texts carry
 *     role=label|pin and of=X,Y (the centre of the node they label);
 *   - right-angle marks role=right-angle, angle arcs (\pic angle, \drawarc)
 *     role=angle-mark with vertex=X,Y; grids role=grid; pgfplots axis lines role=axis;
 *   - named coordinates and nodes as "coord NAME X Y @L" records.
 */
#ifndef DIAGRAMIR_IR_H
#define DIAGRAMIR_IR_H

#include <stddef.h>
#include <stdio.h>

#define IR_VERSION 1

typedef enum {
    IR_POLY,     /* pts: n points; closed flag */
    IR_RECT,     /* pts[0] lower-left, pts[1] upper-right */
    IR_ELLIPSE,  /* pts[0] centre, pts[1] axis A, pts[2] axis B (vectors) */
    IR_ARC,      /* as ellipse, plus t1, t2 in degrees */
    IR_CURVE,    /* pts[0..3] cubic Bezier */
    IR_TEXT,     /* pts[0] lower-left, pts[1] upper-right of the box; str = plain text */
    IR_CLIP,     /* shape in sub (IR_RECT, IR_POLY or IR_ELLIPSE) */
    IR_UNPARSED, /* str = source text */
    IR_VERTEX,   /* name = id; pts[0], pts[1] box; str = text */
    IR_EDGE,     /* name = from; str = to; undirected flag */
    IR_COORD,    /* name = coordinate/node name; pts[0] its centre */
    IR_FINDING,  /* name = criterion; str = reason; verdict=, elems= attributes */
    IR_OTHER     /* unknown record kind: kept verbatim in raw */
} ir_kind;

typedef struct { double x, y; } ir_pt;

typedef struct {
    char *key;
    char *val;
} ir_attr;

typedef struct ir_elem {
    ir_kind kind;
    ir_kind sub;          /* for IR_CLIP: the shape kind */
    int closed;           /* IR_POLY */
    int undirected;       /* IR_EDGE */
    ir_pt *pts;
    size_t npts;
    double t1, t2;        /* IR_ARC */
    char *str;            /* text / unparsed source / edge target */
    char *name;           /* vertex id / edge source */
    char *raw;            /* IR_OTHER: the whole line */
    ir_attr *attrs;
    size_t nattrs;
    int line;             /* source line (@L), 0 unknown */
    int irline;           /* line in the IR stream it was read from (reader), 0 otherwise */
    struct ir_mem *mem;   /* the library's: where pts and attrs live (NULL in a zeroed element) */
} ir_elem;

typedef struct ir_diagram {
    char *id;
    ir_attr *attrs;       /* attributes of the "diagram" line (src=...) */
    size_t nattrs;
    char *unit;           /* "pt" */
    int has_bbox;
    double bbox[4];
    ir_elem *elems;
    size_t nelems, cap;
    int irline;           /* line of the "diagram" record in the IR stream */
    struct ir_mem *mem;   /* the library's: the memory of its elements */
} ir_diagram;

/* --- construction ------------------------------------------------------ */
/* A new empty diagram with unit "pt" (the reader leaves unit NULL when the
 * record has no unit line). */
ir_diagram *ir_diagram_new(const char *id);
/* Frees d and everything it owns (NULL: nothing). */
void ir_diagram_free(ir_diagram *d);
/* Appends a zeroed element of the given kind and returns it (owned by d).
 * The pointer is valid until the next ir_add/ir_add_copy on d. */
ir_elem *ir_add(ir_diagram *d, ir_kind kind);
/* Appends a deep copy of src (which may be an element of d itself, or of
 * another diagram). */
ir_elem *ir_add_copy(ir_diagram *d, const ir_elem *src);
/* Deep copy into *dst, an element outside any diagram (its old contents
 * are not freed): free it with ir_elem_clear. */
void ir_elem_copy(ir_elem *dst, const ir_elem *src);
/* Frees what e owns and zeroes it; the memory of its points and
 * attributes in its diagram stays until the diagram is freed. */
void ir_elem_clear(ir_elem *e);
/* Sets e's points to a copy of pts[0..n). */
void ir_elem_set_pts(ir_elem *e, const ir_pt *pts, size_t n);
/* Sets (or replaces, keeping its place) an attribute of e; copies key and
 * value. val NULL removes the attribute. */
void ir_elem_set(ir_elem *e, const char *key, const char *val);
/* The same for an attribute array of a program's own, such as a diagram's
 * (d->attrs, d->nattrs; both zero at first): each entry is one malloc'd
 * block (free(a->key) frees key and value), the array is malloc'd. */
void ir_set_attr(ir_attr **attrs, size_t *n, const char *key, const char *val);
void ir_elem_setf(ir_elem *e, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *ir_get_attr(const ir_attr *attrs, size_t n, const char *key);
const char *ir_elem_get(const ir_elem *e, const char *key);
/* Numeric attribute, or dflt when absent or not a number. */
double ir_elem_getnum(const ir_elem *e, const char *key, double dflt);
/* Point attribute "X,Y" (at=, of=, vertex=): 1 and *out set, or 0 when
 * absent or malformed. */
int ir_elem_getpt(const ir_elem *e, const char *key, ir_pt *out);

/* Record keyword of a kind ("poly", "clip", ...; "other" for IR_OTHER). */
const char *ir_kind_name(ir_kind k);
/* Kind of a record keyword: 1 and *out set, 0 when not a known element
 * kind (diagram, unit, bbox, end and unknown words give 0). */
int ir_kind_from_name(const char *name, ir_kind *out);

/* --- numbers ------------------------------------------------------------ */
/* Strict, locale-independent number syntax of the IR:
 *   [+-]? (DIGITS [. DIGITS?] | . DIGITS) ([eE] [+-]? DIGITS)?
 * finite values only (no inf, nan, hex). Returns 1 and sets *out (may be
 * NULL) when all of s (or s[0..len)) is such a number, else 0. */
int ir_parse_num(const char *s, double *out);
int ir_parse_num_n(const char *s, size_t len, double *out);
/* A list of numbers separated by sep ("1,2.5,-3"): returns how many there
 * are (only the first max are stored), or -1 when any is malformed or s is
 * empty or NULL. */
int ir_parse_nums(const char *s, char sep, double *out, size_t max);

/* --- writer ------------------------------------------------------------- */
/* Numbers are written locale-independently with up to 3 decimals, trailing
 * zeros removed ("-0" never appears); magnitudes from 1e12 on as %.15g
 * ("1e+15"). NaN and infinities are written as nan/inf/-inf, which the
 * reader rejects: a producer must not emit them.
 * Output is deterministic: one record per line, single blanks between
 * fields, attributes in insertion order, " @L" last when line > 0. A record
 * always gets the number of coordinates its kind needs (missing points are
 * written as 0). */
void ir_write_header(FILE *f);
void ir_write_diagram(FILE *f, const ir_diagram *d);
void ir_write_elem(FILE *f, const ir_elem *e);
/* Formats a number as the writer does into buf (>= 32 bytes). */
char *ir_fmt_num(char *buf, double v);
/* Writes s as a quoted IR string: \" \\ \n \r \t escapes, other control
 * bytes and bytes that are not valid UTF-8 as \xHH. */
void ir_write_quoted(FILE *f, const char *s);
/* Writes s bare when ir_word_is_bare(s), else quoted (names, attribute
 * values). */
void ir_write_word(FILE *f, const char *s);
/* 1 when s can be written without quotes: non-empty, valid UTF-8, no blank
 * or control byte, no '"', '\\' or '=', not starting with '@'. */
int ir_word_is_bare(const char *s);

/* JSON form (cJSON): one object per diagram on one line. -1 on failure. */
int ir_write_json(FILE *f, const ir_diagram *d);

/* Reads all of f (at most about max bytes: *too_big is set when there is
 * more). Returns a malloc'd buffer (not NUL-terminated) or NULL on a read
 * error or when out of memory. */
char *ir_read_all(FILE *f, size_t max, size_t *len, int *too_big);
/* The same for the file at path (fopen(path, "rb"), ir_read_all, fclose,
 * in fewer system calls for regular files): NULL with *open_failed set
 * when it cannot be opened, NULL with *open_failed 0 on a read error;
 * errno tells why in both cases. */
char *ir_read_file(const char *path, size_t max, size_t *len, int *too_big, int *open_failed);

/* --- reader ------------------------------------------------------------- */
typedef struct ir_reader ir_reader;
/* fname is used in error messages only. */
ir_reader *ir_reader_new(FILE *f, const char *fname);
void ir_reader_free(ir_reader *r);
/* Reads the next diagram. Returns 1 and sets *out (caller frees) on success,
 * 0 at end of input, -1 on error (message "file:line:col: error: ..." written
 * into the reader, see ir_reader_error). After an error every later call
 * returns -1 again. Lines may be of any length; NUL bytes are an error. */
int ir_read_diagram(ir_reader *r, ir_diagram **out);
const char *ir_reader_error(const ir_reader *r);

/* --- geometry helpers --------------------------------------------------- */
typedef struct { double x1, y1, x2, y2; int empty; } ir_box;
ir_box ir_box_empty(void);
/* Grows b to hold (x, y) / the box o (inline: hot in irlint's scene). */
static inline void ir_box_add(ir_box *b, double x, double y)
{
    if (b->empty) {
        b->x1 = b->x2 = x;
        b->y1 = b->y2 = y;
        b->empty = 0;
        return;
    }
    if (x < b->x1) b->x1 = x;
    if (x > b->x2) b->x2 = x;
    if (y < b->y1) b->y1 = y;
    if (y > b->y2) b->y2 = y;
}
static inline void ir_box_union(ir_box *b, ir_box o)
{
    if (o.empty) return;
    ir_box_add(b, o.x1, o.y1);
    ir_box_add(b, o.x2, o.y2);
}
/* Extent of an element's geometry (strokes not widened): exact for
 * ellipses, arcs and Bezier curves (not the control polygon); the box of
 * text and vertex; the point of coord; the shape of clip; empty for
 * unparsed, edge and unknown records. Curved outlines as polylines:
 * ir_elem_flatten in ir/geom_2d.h. */
ir_box ir_elem_box(const ir_elem *e);

#endif
