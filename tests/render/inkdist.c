/* inkdist — how far apart the ink of two rasters of one picture is.
 *
 *   inkdist [options] A.png B.png
 *
 * A and B are the same picture drawn twice (TeX's and ours) at the same
 * scale and on the same pixel grid: same size, pixel (i,j) the same point.
 * A pixel is ink when, put over white, one of its channels is darker than
 * white by --threshold (default 128 of 255: half coverage of black, so that
 * the ink of an antialiased stroke is the stroke's own shape whichever
 * renderer drew it).  The exact Euclidean distance transform of each ink
 * mask (Felzenszwalb and Huttenlocher, linear time) gives, for every ink
 * pixel of A, its distance to the nearest ink of B, and the other way.
 *
 * The figure, dist, is the partial Hausdorff distance (Huttenlocher,
 * Klanderman and Rucklidge 1993) with a fixed area: the largest d such that
 * --area pt^2 (default 1) of A's ink lies d or farther from B's ink, or of
 * B's ink from A's.  "Every stroke of one lies within dist of the other's
 * ink": a mark missing from one side or drawn elsewhere shows whole, as in
 * the Hausdorff distance (max), while a few stray antialiasing pixels, which
 * would decide the max, do not count.  A percentile would not do: a missing
 * arrow tip or dot is far less than 1% of a picture's ink.
 *
 * Text (--text-a, --text-b, --boxes): A and B are then the pictures with
 * their text hidden, --text-a/--text-b the same pictures with it; text ink
 * is ink there that is not ink in A (B), or is but of another colour (a
 * channel differs by half the threshold: black text on a strong fill).  The boxes file has one "X1 Y1 X2 Y2" line
 * per text box, in the picture's coordinates (pt, y up), and --origin X,Y
 * is the point of the top-left corner of pixel (0,0).  text_a is the same
 * partial Hausdorff distance from A's text ink to the union of the boxes
 * (0: all of it inside), text_b from B's; missing_a lists the boxes (line
 * numbers of the boxes file) with no text ink of A within --tol pt.
 *
 * Output: one line of name=value fields (distances in pt):
 *   dist ab ba max p99 mean inka inkb [at_ab at_ba]
 *   [text_a text_b text_ab boxes missing_a missing_b [at_text_a at_text_b]]
 * at_* is the point (pt, with --origin) of the ink that decides the figure.
 * --diff OUT.png writes a picture of the comparison: ink of both dark grey,
 * A's only red, B's only blue, text of A orange, of B cyan, boxes green.
 *
 * Exit status: 0 measured; 2 usage, unreadable input or sizes that differ.
 */
#include <cairo.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG 1e30

typedef struct {
    int w, h;
    unsigned char *m;  /* 1: ink */
    uint32_t *rgb;     /* the colour over white, 0xRRGGBB (when asked for) */
} mask;

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "inkdist: %s%s%s\n", arg ? arg : "", arg ? ": " : "", msg);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory", NULL);
    return p;
}

/* The ink mask of a PNG: over white, some channel darker than thr. */
static mask load(const char *path, int thr, int want_rgb)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
        die(cairo_status_to_string(cairo_surface_status(s)), path);
    cairo_format_t fmt = cairo_image_surface_get_format(s);
    mask k = {cairo_image_surface_get_width(s), cairo_image_surface_get_height(s), NULL, NULL};
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    if (!px || (fmt != CAIRO_FORMAT_ARGB32 && fmt != CAIRO_FORMAT_RGB24 && fmt != CAIRO_FORMAT_A8))
        die("unsupported pixel format", path);
    k.m = xmalloc((size_t)k.w * k.h);
    if (want_rgb) k.rgb = xmalloc(sizeof *k.rgb * (size_t)k.w * k.h);
    for (int y = 0; y < k.h; y++) {
        const unsigned char *row = px + (size_t)y * stride;
        for (int x = 0; x < k.w; x++) {
            int dark;
            uint32_t over = 0;
            if (fmt == CAIRO_FORMAT_A8) {
                dark = row[x];
                over = (uint32_t)(255 - dark) * 0x010101u;
            } else {
                uint32_t v;
                memcpy(&v, row + 4 * x, 4);
                int a = fmt == CAIRO_FORMAT_RGB24 ? 255 : (int)(v >> 24);
                int r = (v >> 16) & 255, g = (v >> 8) & 255, b = v & 255;
                /* premultiplied: over white a channel is c + 255 - a */
                int m = r < g ? r : g;
                if (b < m) m = b;
                dark = a - m;
                over = (uint32_t)(r + 255 - a) << 16 | (uint32_t)(g + 255 - a) << 8 | (uint32_t)(b + 255 - a);
            }
            k.m[(size_t)y * k.w + x] = dark >= thr;
            if (k.rgb) k.rgb[(size_t)y * k.w + x] = over;
        }
    }
    cairo_surface_destroy(s);
    return k;
}

/* The largest difference of two colours' channels. */
static int coldiff(uint32_t p, uint32_t q)
{
    int d = 0;
    for (int sh = 0; sh < 24; sh += 8) {
        int v = (int)((p >> sh) & 255) - (int)((q >> sh) & 255);
        if (v < 0) v = -v;
        if (v > d) d = v;
    }
    return d;
}

/* 1-D squared distance transform of f (BIG: no site) into d: the lower
 * envelope of the parabolas rooted at the sites (Felzenszwalb and
 * Huttenlocher 2012), only over finite sites, so it is exact. */
static void dt1(const double *f, int n, double *d, int *v, double *z)
{
    int k = -1;
    for (int q = 0; q < n; q++) {
        if (f[q] >= BIG) continue;
        double s = 0;
        while (k >= 0) {
            int p = v[k];
            s = ((f[q] + (double)q * q) - (f[p] + (double)p * p)) / (2.0 * (q - p));
            if (s > z[k]) break;
            k--;
        }
        k++;
        v[k] = q;
        z[k] = k == 0 ? -BIG : s;
        z[k + 1] = BIG;
    }
    if (k < 0) {
        for (int q = 0; q < n; q++) d[q] = BIG;
        return;
    }
    int j = 0;
    for (int q = 0; q < n; q++) {
        while (z[j + 1] < q) j++;
        double t = q - v[j];
        d[q] = t * t + f[v[j]];
    }
}

/* Squared distance (px^2) of every pixel to the nearest set pixel of m. */
static double *edt(const unsigned char *m, int w, int h)
{
    int n = w > h ? w : h;
    double *dt = xmalloc(sizeof *dt * (size_t)w * h);
    double *f = xmalloc(sizeof *f * n), *d = xmalloc(sizeof *d * n);
    double *z = xmalloc(sizeof *z * (n + 1));
    int *v = xmalloc(sizeof *v * n);
    for (int x = 0; x < w; x++) {
        for (int y = 0; y < h; y++) f[y] = m[(size_t)y * w + x] ? 0 : BIG;
        dt1(f, h, d, v, z);
        for (int y = 0; y < h; y++) dt[(size_t)y * w + x] = d[y];
    }
    for (int y = 0; y < h; y++) {
        double *row = dt + (size_t)y * w;
        memcpy(f, row, sizeof *f * w);
        dt1(f, w, row, v, z);
    }
    free(f); free(d); free(z); free(v);
    return dt;
}

/* The k-th smallest (0-based) of a[0..n-1], reordering a. */
static double select_kth(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double p = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i <= j) {
                double t = a[i]; a[i] = a[j]; a[j] = t;
                i++;
                if (j == 0) break;
                j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

typedef struct {
    double part, max, p99, sum;  /* px */
    size_t n;
    int at;                       /* pixel deciding part, -1 none */
} dirstat;

/* Distances of the pixels of a to the set whose squared distance transform
 * is dt: the partial Hausdorff figure over kpx pixels and the others. A
 * side with fewer than kpx ink pixels has figure 0 (all of it is a speck);
 * when the other side has none at all, distances are `none'. */
static dirstat directed(const unsigned char *a, const double *dt, size_t npx, size_t kpx, double none)
{
    dirstat s = {0, 0, 0, 0, 0, -1};
    for (size_t i = 0; i < npx; i++) s.n += a[i];
    if (!s.n) return s;
    double *d = xmalloc(sizeof *d * s.n);
    size_t j = 0;
    for (size_t i = 0; i < npx; i++)
        if (a[i]) {
            double v = dt[i] >= BIG ? none : sqrt(dt[i]);
            d[j++] = v;
            s.sum += v;
            if (v > s.max) s.max = v;
        }
    s.p99 = select_kth(d, s.n, (size_t)(0.99 * (s.n - 1)));
    if (s.n >= kpx) {
        s.part = select_kth(d, s.n, s.n - kpx);
        /* where: the first pixel at that distance */
        for (size_t i = 0; i < npx; i++)
            if (a[i] && (dt[i] >= BIG ? none : sqrt(dt[i])) == s.part) { s.at = (int)i; break; }
    }
    free(d);
    return s;
}

typedef struct { double x1, y1, x2, y2; int line; } box;

static void usage(FILE *f)
{
    fputs("usage: inkdist [options] A.png B.png\n"
          "  -d, --dpi D          the rasters' dots per inch (default 288)\n"
          "  -t, --threshold T    ink: darker than white by T of 255 (default 128)\n"
          "  -k, --area A         partial Hausdorff area, pt^2 (default 1)\n"
          "      --text-a FILE    A with its text (A.png without)\n"
          "      --text-b FILE    B with its text (B.png without)\n"
          "      --boxes FILE     text boxes, X1 Y1 X2 Y2 per line (pt, y up)\n"
          "      --origin X,Y     the point of pixel (0,0)'s top-left corner (pt)\n"
          "      --tol PT         a box holds text ink within PT of it (default 2)\n"
          "      --diff OUT.png   a picture of the comparison\n", f);
}

static double numarg(const char *s, const char *opt)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v)) die("not a number", opt);
    return v;
}

int main(int argc, char **argv)
{
    double dpi = 288, area = 1, tol = 2, ox = 0, oy = 0;
    int thr = 128;
    const char *text_a = NULL, *text_b = NULL, *boxes = NULL, *diff = NULL;
    static const struct option lo[] = {
        {"dpi", required_argument, 0, 'd'},
        {"threshold", required_argument, 0, 't'},
        {"area", required_argument, 0, 'k'},
        {"text-a", required_argument, 0, 'A'},
        {"text-b", required_argument, 0, 'B'},
        {"boxes", required_argument, 0, 'x'},
        {"origin", required_argument, 0, 'o'},
        {"tol", required_argument, 0, 'T'},
        {"diff", required_argument, 0, 'D'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "d:t:k:h", lo, 0)) != -1) {
        switch (c) {
        case 'd': dpi = numarg(optarg, "--dpi"); if (dpi <= 0) die("must be positive", "--dpi"); break;
        case 't': thr = (int)numarg(optarg, "--threshold"); if (thr < 1 || thr > 255) die("must be 1..255", "--threshold"); break;
        case 'k': area = numarg(optarg, "--area"); if (area < 0) die("must not be negative", "--area"); break;
        case 'A': text_a = optarg; break;
        case 'B': text_b = optarg; break;
        case 'x': boxes = optarg; break;
        case 'o': {
            char *end;
            ox = strtod(optarg, &end);
            if (end == optarg || *end != ',') die("want X,Y", "--origin");
            oy = numarg(end + 1, "--origin");
            break;
        }
        case 'T': tol = numarg(optarg, "--tol"); break;
        case 'D': diff = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 2) { usage(stderr); return 2; }
    if ((text_a != NULL) != (text_b != NULL)) die("--text-a and --text-b go together", NULL);

    double s = dpi / 72.27;              /* pixels per pt */
    mask A = load(argv[optind], thr, text_a != NULL), B = load(argv[optind + 1], thr, text_a != NULL);
    if (A.w != B.w || A.h != B.h) {
        fprintf(stderr, "inkdist: %s is %dx%d, %s is %dx%d: not the same grid\n",
                argv[optind], A.w, A.h, argv[optind + 1], B.w, B.h);
        return 2;
    }
    int w = A.w, h = A.h;
    size_t npx = (size_t)w * h;
    size_t kpx = (size_t)ceil(area * s * s - 1e-9);
    if (kpx < 1) kpx = 1;
    double none = sqrt((double)w * w + (double)h * h);  /* no ink at all on the other side */

    double *dta = edt(A.m, w, h), *dtb = edt(B.m, w, h);
    dirstat ab = directed(A.m, dtb, npx, kpx, none), ba = directed(B.m, dta, npx, kpx, none);
    double dist = (ab.part > ba.part ? ab.part : ba.part) / s;
    double mx = (ab.max > ba.max ? ab.max : ba.max) / s;
    double p99 = (ab.p99 > ba.p99 ? ab.p99 : ba.p99) / s;
    double mean = ab.n + ba.n ? (ab.sum + ba.sum) / (ab.n + ba.n) / s : 0;
    printf("dist=%.3f ab=%.3f ba=%.3f max=%.3f p99=%.3f mean=%.3f inka=%zu inkb=%zu",
           dist, ab.part / s, ba.part / s, mx, p99, mean, ab.n, ba.n);
#define PT_X(i) (ox + ((i) % w + 0.5) / s)
#define PT_Y(i) (oy - ((i) / w + 0.5) / s)
    if (ab.at >= 0) printf(" at_ab=%.1f,%.1f", PT_X(ab.at), PT_Y(ab.at));
    if (ba.at >= 0) printf(" at_ba=%.1f,%.1f", PT_X(ba.at), PT_Y(ba.at));

    unsigned char *ta = NULL, *tb = NULL, *bm = NULL;
    box *bx = NULL;
    int nb = 0;
    if (text_a) {
        mask FA = load(text_a, thr, 1), FB = load(text_b, thr, 1);
        if (FA.w != w || FA.h != h || FB.w != w || FB.h != h)
            die("the pictures with text are not on the same grid", NULL);
        ta = xmalloc(npx); tb = xmalloc(npx); bm = calloc(npx, 1);
        if (!bm) die("out of memory", NULL);
        for (size_t i = 0; i < npx; i++) {
            ta[i] = FA.m[i] && (!A.m[i] || coldiff(FA.rgb[i], A.rgb[i]) >= thr / 2);
            tb[i] = FB.m[i] && (!B.m[i] || coldiff(FB.rgb[i], B.rgb[i]) >= thr / 2);
        }
        free(FA.m); free(FB.m); free(FA.rgb); free(FB.rgb);
        if (boxes) {
            FILE *f = fopen(boxes, "r");
            if (!f) die("cannot read", boxes);
            char line[512];
            int ln = 0, cap = 0;
            while (fgets(line, sizeof line, f)) {
                ln++;
                box b;
                if (sscanf(line, "%lf %lf %lf %lf", &b.x1, &b.y1, &b.x2, &b.y2) != 4) continue;
                b.line = ln;
                if (nb == cap) {
                    cap = cap ? 2 * cap : 16;
                    box *nbx = realloc(bx, sizeof *bx * cap);
                    if (!nbx) die("out of memory", NULL);
                    bx = nbx;
                }
                bx[nb++] = b;
            }
            fclose(f);
        }
        /* the boxes' pixels: those whose centre is inside (at least one) */
        for (int b = 0; b < nb; b++) {
            int i1 = (int)ceil((bx[b].x1 - ox) * s - 0.5), i2 = (int)floor((bx[b].x2 - ox) * s - 0.5);
            int j1 = (int)ceil((oy - bx[b].y2) * s - 0.5), j2 = (int)floor((oy - bx[b].y1) * s - 0.5);
            if (i2 < i1) i1 = i2 = (int)floor(((bx[b].x1 + bx[b].x2) / 2 - ox) * s);
            if (j2 < j1) j1 = j2 = (int)floor((oy - (bx[b].y1 + bx[b].y2) / 2) * s);
            if (i1 < 0) i1 = 0;
            if (j1 < 0) j1 = 0;
            if (i2 >= w) i2 = w - 1;
            if (j2 >= h) j2 = h - 1;
            for (int j = j1; j <= j2; j++)
                for (int i = i1; i <= i2; i++) bm[(size_t)j * w + i] = 1;
        }
        double *dbox = edt(bm, w, h);
        double *dtta = edt(ta, w, h);
        double *dttb = edt(tb, w, h);
        dirstat xa = directed(ta, dbox, npx, kpx, none), xb = directed(tb, dbox, npx, kpx, none);
        dirstat tab = directed(ta, dttb, npx, kpx, none), tba = directed(tb, dtta, npx, kpx, none);
        printf(" text_a=%.3f text_b=%.3f text_ab=%.3f boxes=%d", xa.part / s, xb.part / s,
               (tab.part > tba.part ? tab.part : tba.part) / s, nb);
        /* a box holds text ink when some lies within tol of it */
        for (int side = 0; side < 2; side++) {
            const double *dtt = side ? dttb : dtta;
            printf(" missing_%c=", side ? 'b' : 'a');
            int any = 0;
            for (int b = 0; b < nb; b++) {
                int i1 = (int)floor((bx[b].x1 - ox) * s), i2 = (int)ceil((bx[b].x2 - ox) * s);
                int j1 = (int)floor((oy - bx[b].y2) * s), j2 = (int)ceil((oy - bx[b].y1) * s);
                double t2 = tol * s * tol * s;
                int found = 0;
                for (int j = j1 < 0 ? 0 : j1; j < h && j <= j2 && !found; j++)
                    for (int i = i1 < 0 ? 0 : i1; i < w && i <= i2; i++)
                        if (dtt[(size_t)j * w + i] <= t2) { found = 1; break; }
                if (!found) { printf("%s%d", any ? "," : "", bx[b].line); any = 1; }
            }
            if (!any) printf("-");
        }
        if (xa.at >= 0) printf(" at_text_a=%.1f,%.1f", PT_X(xa.at), PT_Y(xa.at));
        if (xb.at >= 0) printf(" at_text_b=%.1f,%.1f", PT_X(xb.at), PT_Y(xb.at));
        free(dbox); free(dtta); free(dttb);
    }
    printf("\n");

    if (diff) {
        cairo_surface_t *out = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
        unsigned char *px = cairo_image_surface_get_data(out);
        int stride = cairo_image_surface_get_stride(out);
        cairo_surface_flush(out);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                uint32_t v = 0xffffff;
                if (A.m[i] && B.m[i]) v = 0x505050;
                else if (A.m[i]) v = 0xe00000;
                else if (B.m[i]) v = 0x0050ff;
                else if (ta && ta[i] && tb[i]) v = 0x806040;
                else if (ta && ta[i]) v = 0xff9900;
                else if (tb && tb[i]) v = 0x00c8c8;
                else if (bm && bm[i]) v = 0xd8f5d8;
                memcpy(px + (size_t)y * stride + 4 * x, &v, 4);
            }
        cairo_surface_mark_dirty(out);
        if (cairo_surface_write_to_png(out, diff) != CAIRO_STATUS_SUCCESS) die("cannot write", diff);
        cairo_surface_destroy(out);
    }
    free(A.m); free(B.m); free(A.rgb); free(B.rgb); free(dta); free(dtb); free(ta); free(tb); free(bm); free(bx);
    return 0;
}
