/* fuzz_llm/svg_refine.c — svg2graph --llm's answer checker and the code that
 * applies an answer: the input is a model's answer to the node request, or,
 * after "E:", to the edge request, on a fixed diagram (vertices, edges,
 * text records with node=, a label). After an answer is applied the graph
 * must still be one: vertex ids unique, every edge between two vertices,
 * every text's node= a vertex; a rejected answer must leave the diagram
 * byte for byte as it was. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"
#include "llm/svg_refine.h"

static const char IR[] =
    "diagramir 1\n"
    "diagram fuzz\n"
    "unit pt\n"
    "rect 15 -75 90 -45 draw=#333 fill=#eef role=node @11\n"
    "text 105 -17 194 -7 \"Figure 1\" size=10.5 node=n1 @10\n"
    "text 36 -66 68 -57 \"Encoder\" size=9 node=n2 @12\n"
    "text 231 -66 263 -57 \"Decoder\" size=9 node=n3 @14\n"
    "text 128 -122 171 -113 \"Multi-Head\" size=9 node=n4 @15\n"
    "text 131 -152 168 -143 \"Attention\" size=9 node=n5 @16\n"
    "text 140 -57 159 -49 \"latent\" size=7.5 role=label @19\n"
    "vertex n1 105 -17 194 -7 \"Figure 1\" shape=text @10\n"
    "vertex n2 15 -75 90 -45 \"Encoder\" shape=rect @12\n"
    "vertex n3 210 -75 285 -45 \"Decoder\" shape=rect @14\n"
    "vertex n4 128 -122 171 -113 \"Multi-Head\" shape=text @15\n"
    "vertex n5 131 -152 168 -143 \"Attention\" shape=text @16\n"
    "edge n2 n3 label=latent @17\n"
    "edge n2 n4 @18\n"
    "edge n4 n5 undirected @20\n"
    "edge n5 n4 @21\n"
    "end\n";

static ir_diagram *load(void)
{
    FILE *f = fmemopen((void *)IR, sizeof IR - 1, "r");
    if (!f) abort();
    ir_reader *r = ir_reader_new(f, "fuzz.ir");
    ir_diagram *d = NULL;
    if (ir_read_diagram(r, &d) != 1) abort();
    ir_reader_free(r);
    fclose(f);
    return d;
}

static char *dump(const ir_diagram *d)
{
    char *mem = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&mem, &n);
    if (!m) abort();
    ir_write_diagram(m, d);
    fclose(m);
    return mem;
}

static int is_vertex(const ir_diagram *d, const char *name)
{
    for (size_t i = 0; name && i < d->nelems; i++)
        if (d->elems[i].kind == IR_VERTEX && strcmp(d->elems[i].name, name) == 0) return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned step = S2L_NODES;
    if (size >= 2 && data[0] == 'E' && data[1] == ':') {
        step = S2L_EDGES;
        data += 2;
        size -= 2;
    }
    ir_diagram *d = load();
    char *before = dump(d), err[512];
    if (s2l_apply_answer(d, step, (const char *)data, size, err, sizeof err) != 0) {
        char *after = dump(d);
        if (strcmp(before, after) != 0) abort();
        free(after);
    } else {
        for (size_t i = 0; i < d->nelems; i++) {
            const ir_elem *e = &d->elems[i];
            if (e->kind == IR_VERTEX)
                for (size_t k = i + 1; k < d->nelems; k++)
                    if (d->elems[k].kind == IR_VERTEX && strcmp(d->elems[k].name, e->name) == 0)
                        abort();
            if (e->kind == IR_EDGE && (!is_vertex(d, e->name) || !is_vertex(d, e->str))) abort();
            if (e->kind == IR_TEXT && ir_elem_get(e, "node") && !is_vertex(d, ir_elem_get(e, "node")))
                abort();
        }
        free(dump(d));
    }
    free(before);
    ir_diagram_free(d);
    return 0;
}
