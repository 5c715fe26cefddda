/* ir_num.c — fast exact number parsing; see ir_num.h. */
#include "ir/ir_num.h"

const double ir_num_p10_[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

int ir_num_parse(const char *s, size_t len, double *out)
{
    return ir_num_parse_inline(s, len, out);
}

double ir_num_strtod(const char *s, char **end)
{
    return ir_num_strtod_inline(s, end);
}
