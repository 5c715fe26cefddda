/* test_ir_elem_set.c — ir_elem_set on an element whose attribute array is
 * not yet in the library's memory (an ir_elem a program filled in itself,
 * e.g. a copy by value of another's fields): replacing or removing a key
 * must change the element and leave the program's array as it was. */
#include "ir/ir.h"
#include "tests/unit/check.h"

#include <string.h>

static ir_elem with_own_array(ir_attr *arr)
{
    ir_elem e;
    memset(&e, 0, sizeof e);
    e.kind = IR_POLY;
    arr[0].key = (char *)"a", arr[0].val = (char *)"1";
    arr[1].key = (char *)"b", arr[1].val = (char *)"2";
    e.attrs = arr;
    e.nattrs = 2;
    return e;
}

int main(void)
{
    ir_attr arr[2];
    /* replace */
    ir_elem e = with_own_array(arr);
    ir_elem_set(&e, "a", "9");
    CHECK(e.nattrs == 2);
    CHECK(ir_elem_get(&e, "a") && strcmp(ir_elem_get(&e, "a"), "9") == 0);
    CHECK(ir_elem_get(&e, "b") && strcmp(ir_elem_get(&e, "b"), "2") == 0);
    CHECK(strcmp(arr[0].val, "1") == 0);
    ir_elem_clear(&e);
    /* remove */
    e = with_own_array(arr);
    ir_elem_set(&e, "a", NULL);
    CHECK(e.nattrs == 1);
    CHECK(ir_elem_get(&e, "a") == NULL);
    CHECK(ir_elem_get(&e, "b") && strcmp(ir_elem_get(&e, "b"), "2") == 0);
    CHECK(strcmp(arr[0].key, "a") == 0 && strcmp(arr[1].key, "b") == 0);
    ir_elem_clear(&e);
    /* append */
    e = with_own_array(arr);
    ir_elem_set(&e, "c", "3");
    CHECK(e.nattrs == 3);
    CHECK(ir_elem_get(&e, "c") && strcmp(ir_elem_get(&e, "c"), "3") == 0);
    CHECK(ir_elem_get(&e, "a") && strcmp(ir_elem_get(&e, "a"), "1") == 0);
    ir_elem_clear(&e);
    printf("test_ir_elem_set: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
