/* test_request.c — geom_request_parse (checks/geom/request.c) reads what
 * teachers' requests state: each case is a request written the way they
 * are (shape words, "A x B x C", "A by B", "N cubes long, M wide, K high",
 * "L layers, M cubes per layer", sides, angles) and what must be read from
 * it, compared through geom_request_describe's line and the fields. Cases
 * that must not be read (expressions in angles, "square units", "dot
 * cubes", counts of partial fillings, overlapping parts) are here too. */
#include <string.h>

#include "checks/geom/request.h"
#include "tests/unit/check.h"

static void expect(const char *text, const char *want)
{
    geom_request r;
    char got[1024];
    geom_request_parse(text, &r);
    geom_request_describe(&r, got, sizeof got);
    CHECK(strcmp(got, want) == 0);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "  request: %s\n  want:    %s\n  got:     %s\n", text, want, got);
}

int main(void)
{
    expect("", "kinds=- props=-");
    expect("right triangle, hypotenuse x, adjacent side 17.3, angle 37 degrees",
           "kinds=triangle props=right angle=37");
    expect("cube tower, 4 cubes stacked vertically",
           "kinds=cube props=composite,unit-cubes,stacked cubes=4");
    expect("3D rectangular prism, 7 x 4 x 3 dimensions, showing how it can be split into "
           "5 x 4 x 3 plus 2 x 4 x 3",
           "kinds=prism props=composite,divided solid=7 x 4 x 3 solid=5 x 4 x 3 "
           "solid=2 x 4 x 3");
    expect("Draw a 2 \xc3\x97 2 \xc3\x97 2 cube (rectangular prism of 8 unit cubes).",
           "kinds=prism,cube props=unit-cubes cubes=8 solid=2 x 2 x 2 cubes");
    expect("8 cubes long by 2 cubes wide by 2 cubes high",
           "kinds=cube props=unit-cubes cubes=32 solid(lwh)=8 x 2 x 2 cubes");
    /* length, width and height in the order named, whatever the order written */
    expect("prism made of unit cubes, 5 cubes tall, 3 cubes wide, 4 cubes long",
           "kinds=prism,cube props=unit-cubes cubes=60 solid(lwh)=4 x 3 x 5 cubes");
    expect("rectangular prism made of unit cubes, 3 wide, 2 deep, 4 tall",
           "kinds=prism,cube props=unit-cubes cubes=24 solid(lwh)=2 x 3 x 4");
    expect("rectangular prism, length 5, width 3, height 4",
           "kinds=prism props=- solid(lwh)=5 x 3 x 4");
    expect("rectangular prism made of unit cubes, 5 layers, 15 cubes per layer",
           "kinds=prism,cube props=unit-cubes cubes=75");
    /* parts that do not overlap add up; overlapping ones are not counted */
    expect("first prism 3 x 2 x 4 unit cubes, second prism 2 x 3 x 2 unit cubes",
           "kinds=prism,cube props=composite,unit-cubes cubes=36 solid=3 x 2 x 4 cubes "
           "solid=2 x 3 x 2 cubes");
    expect("unit cubes in a cross shape, bar 5 x 1 x 2 and bar 1 x 3 x 2 overlapping",
           "kinds=cube props=composite,overlap,unit-cubes solid=5 x 1 x 2 solid=1 x 3 x 2");
    expect("rectangular prism made of unit cubes, partially filled, showing 8 layers with 15 "
           "cubes per layer",
           "kinds=prism,cube props=unit-cubes");
    expect("dot cubes, 3 dots in diagonal arrangement", "kinds=cube props=-");
    expect("two triangles side by side, Triangle ABC with sides 4, 5, 6 and Triangle DEF "
           "with sides 6, 7.5, unknown",
           "kinds=triangle props=- sides=4 x 5 x 6");
    expect("left triangle with sides 3cm, 4cm, 5cm, right triangle with sides 6cm, 8cm, 10cm",
           "kinds=triangle props=- sides=3 x 4 x 5 cm sides=6 x 8 x 10 cm");
    expect("triangle with angles labeled (2x + 10)\xc2\xb0, (3x - 20)\xc2\xb0, and (x + 10)\xc2\xb0",
           "kinds=triangle props=-");
    expect("right triangle with angles labeled 35\xc2\xb0, 55\xc2\xb0, and 90\xc2\xb0",
           "kinds=triangle props=right angle=35 angle=55 angle=90");
    expect("triangle rotated 90 degrees about its vertex", "kinds=triangle props=-");
    expect("isosceles triangle with vertex angle 28 degrees",
           "kinds=triangle props=isosceles angle=28");
    expect("right triangle on grid showing area of 15 square units",
           "kinds=triangle,plane props=right");
    expect("rectangle, original 4x2 and scaled copy 8x4",
           "kinds=rectangle props=- flat=4 x 2 flat=8 x 4");
    expect("grid showing rectangle 2 units wide by 1 unit tall",
           "kinds=rectangle,plane props=- flat=2 x 1 units");
    expect("rectangle 12 cm by 8 cm", "kinds=rectangle props=- flat=12 x 8 cm");
    expect("rectangle decomposition, 6 by 4 rectangle split into two 3 by 4 rectangles",
           "kinds=rectangle props=divided flat=6 x 4 flat=3 x 4");
    expect("rectangular prism, 5 inches \xc3\x97 4 inches \xc3\x97 3 inches",
           "kinds=prism props=- solid=5 x 4 x 3 in");
    expect("cylinder, cone and sphere; a pentagon; parallel lines", 
           "kinds=polygon,cylinder,cone,sphere props=parallel");

    /* fields, not only the description */
    geom_request r;
    geom_request_parse("rectangular prism 2.5 x 4 x 10 cm", &r);
    CHECK(r.nsolids == 1 && r.solids[0].n == 3 && r.solids[0].v[0] == 2.5 &&
          r.solids[0].v[2] == 10 && !strcmp(r.solids[0].unit, "cm") && r.ncubes == 0);
    /* a number too long for a double's digits keeps its magnitude, and a
     * huge one is not a length */
    char longnum[600];
    memset(longnum, '9', 500);
    strcpy(longnum + 500, " x 2 x 3 prism");
    geom_request_parse(longnum, &r);
    CHECK(r.nsolids == 0 && (r.kinds & RQ_PRISM));
    geom_request_parse("1234567890123456789 x 2 x 3 prism", &r);
    CHECK(r.nsolids == 0);
    geom_request_parse("123456 x 2 x 3 prism", &r);
    CHECK(r.nsolids == 1 && r.solids[0].v[0] == 123456);
    /* lists stop at RQ_MAX; the description is cut, never overrun */
    geom_request_parse("1x2 3x4 5x6 7x8 9x10 11x12 13x14 15x16 17x18 19x20 angles 1\xc2\xb0 "
                       "2\xc2\xb0 3\xc2\xb0 4\xc2\xb0 5\xc2\xb0 6\xc2\xb0 7\xc2\xb0 8\xc2\xb0 "
                       "9\xc2\xb0 10\xc2\xb0",
                       &r);
    CHECK(r.nflats == RQ_MAX && r.nangles == RQ_MAX && r.flats[RQ_MAX - 1].v[1] == 16);
    char tiny[8];
    size_t n = geom_request_describe(&r, tiny, sizeof tiny);
    CHECK(strlen(tiny) == sizeof tiny - 1 && n > sizeof tiny);
    geom_request_parse(NULL, &r);
    CHECK(r.kinds == 0 && r.nsolids == 0);

    printf("test_request: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
