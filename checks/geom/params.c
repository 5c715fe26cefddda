/* params.c — the geom rubric's tolerances: their values in force and the
 * parameter table irlint sets them through (GEOM_PARAMS in geom.h lists
 * each once). */
#include "checks/geom/geom.h"

geom_tolerances geom_tol = {
#define GEOM_DEFAULT(f, n, d, u, lo, hi, fit, g) .f = (d),
    GEOM_PARAMS(GEOM_DEFAULT)
#undef GEOM_DEFAULT
};

const chk_param geom_params[GEOM_NPARAMS] = {
#define GEOM_ENTRY(f, n, d, u, lo, hi, fit, g) {n, &geom_tol.f, (d), u, (lo), (hi), (fit), g},
    GEOM_PARAMS(GEOM_ENTRY)
#undef GEOM_ENTRY
};
