/* tikzopt_keys.h — the option keys tikzopt.c's apply_one knows, and what it
 * does with each. The keys and their entries are listed in
 * grammar/tikzopt_keys.gperf, from which gperf generates tk_opt_key_find, a
 * perfect hash (the Makefile's rule puts it in $(GEN_DIR)). Shared with
 * tests/unit/test_tikzopt.c, which checks that every key is found and that
 * no other text is. Not part of the public contract. */
#ifndef DIAGRAMIR_TIKZOPT_KEYS_H
#define DIAGRAMIR_TIKZOPT_KEYS_H

#include <stddef.h>

/* What apply_one does with a key (the id of its entry) */
enum {
    K_NONE,
    K_WIDTH, K_DASH, K_DIR, K_SHAPENAME, K_TEXTALIGN, K_IGNORE, K_DRAW, K_FILL, K_MIDWAY,
    K_NEAR_START, K_NEAR_END, K_VERY_NEAR_START, K_VERY_NEAR_END, K_AT_START, K_AT_END,
    K_SLOPED, K_ON_GRID, K_TRANSFORM_SHAPE, K_OVERLAY, K_ROUNDED_CORNERS, K_SHARP_CORNERS, K_HELP_LINES,
    K_BEND_LEFT, K_BEND_RIGHT, K_SCALE_ONLY_AXIS, K_COLOR, K_TEXT, K_LINE_WIDTH,
    K_DASH_PATTERN, K_ARROWS, K_SCALE, K_XSCALE, K_YSCALE, K_XSHIFT, K_YSHIFT, K_SHIFT,
    K_ROTATE, K_ROTATE_AROUND, K_XSLANT, K_YSLANT, K_CM, K_X, K_Y, K_Z, K_FONT, K_ANCHOR,
    K_POS, K_INNER_SEP, K_INNER_XSEP, K_INNER_YSEP, K_OUTER_SEP, K_MINIMUM_SIZE,
    K_MINIMUM_WIDTH, K_MINIMUM_HEIGHT, K_SHAPE, K_TEXT_WIDTH, K_ALIGN, K_NODE_DISTANCE,
    K_REGULAR_POLYGON_SIDES, K_SHAPE_BORDER_ROTATE, K_REGULAR_POLYGON_ROTATE, K_ASPECT,
    K_SHAPE_ASPECT, K_LABEL, K_PIN, K_LABEL_DISTANCE, K_NAME, K_RADIUS, K_X_RADIUS,
    K_Y_RADIUS, K_START_ANGLE, K_END_ANGLE, K_DELTA_ANGLE, K_STEP, K_IN, K_OUT, K_DOMAIN,
    K_SAMPLES, K_NAME_PATH, K_NAME_PATH_GLOBAL, K_NAME_INTERSECTIONS,
    K_RIGHT_ANGLE_QUADRANT, K_RIGHT_ANGLE_LENGTH, K_IR_ROLE,
    K_RR_ARC_LENGTH, K_RR_WEST_ARC, K_RR_EAST_ARC, K_CH_ANGLE, K_CH_XSEP, K_CH_YSEP,
    K_CH_SEP, K_CH_CORNERS, K_STAR_POINTS, K_STAR_RATIO, K_STAR_HEIGHT, K_STAR_ROTATE,
};

/* A key's entry: its name, what apply_one does with it (id) and arg: the
 * index into the widths, dashes, dirs or text_aligns table of the id, else 0 */
struct opt_key {
    const char *name;
    unsigned char id, arg;
};

/* The entry of the key k[0,kn) (k need not end in a NUL), or NULL. */
const struct opt_key *tk_opt_key_find(const char *k, size_t kn);

/* The generated hash table, for the unit test: tk_opt_nslots slots, of which
 * tk_opt_nkeys hold a key; a slot without one has the name "". */
extern const struct opt_key *const tk_opt_key_slots;
extern const size_t tk_opt_nslots, tk_opt_nkeys;

#endif
