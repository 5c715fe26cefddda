/* request_llm.h — a language model reads what the request parser cannot.
 *
 * irlint --request-llm: when the deterministic parser (request.h) reads
 * nothing measurable from a request that states numbers, or no shape kind
 * at all (geom_request_unread), the request goes, through the project's
 * LLM client (llm/llm.h: cached, retried, keyless on local servers), to a
 * model asked for the same structure as JSON. What the model gives fills
 * only what the parser left empty, and each field it filled is marked
 * (geom_request.llm): geom_request_describe prints "src=llm:FIELDS", and
 * the core-math and shape-closed reasons that rest on such a request say
 * so. Off until geom_request_llm_open; without it geom_request_read is
 * geom_request_parse.
 */
#ifndef DIAGRAMIR_CHECKS_GEOM_REQUEST_LLM_H
#define DIAGRAMIR_CHECKS_GEOM_REQUEST_LLM_H

#include <stddef.h>
#include <stdio.h>

#include "checks/geom/request.h"
#include "checks/rubric.h"
#include "llm/llm.h"

/* Starts the fallback with a client for cfg (one per process; a second
 * call replaces the first). Warnings go to diag (NULL: none). 0, or -1
 * with the reason in err. */
int geom_request_llm_open(const llm_config *cfg, FILE *diag, char *err, size_t errlen);
/* Ends it; writes the client's summary to summary when not NULL. */
void geom_request_llm_close(FILE *summary);

/* The parser's reading, completed by the model when the fallback is on and
 * geom_request_unread says the parser missed something. A request the
 * model already answered in this process is not sent again. */
void geom_request_read(const char *text, geom_request *r);

/* 1 when r, the parser's reading of text, is empty where text is not: no
 * shape kind read, or the text has numbers (digits) and none was read into
 * a count, a dimension, a side or an angle. */
int geom_request_unread(const geom_request *r, const char *text);

/* Reads the model's answer (a JSON object: "kinds", "props" as the names
 * geom_request_describe prints; "cubes"; "solids", "flats", "sides" as
 * lists of {"dims": [numbers], "unit": "cm"}; "angles" in degrees) into
 * the fields of r the parser left empty, marking them in r->llm. 0, or -1
 * with the reason in err when the answer breaks that form (then r is
 * unchanged). */
int geom_request_merge_json(geom_request *r, const char *json, size_t n, char *err,
                            size_t errlen);

/* Appends to v's reason (not for na) which fields of r a model read,
 * " (request read in part by a model: src=llm:angles)", when any. */
void geom_request_note(const geom_request *r, chk_verdict *v);

#endif
