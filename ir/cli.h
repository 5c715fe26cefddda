/* ir/cli.h — the command-line contract every program shares (see
 * diagramir-options(7)): one version, --output FILE written atomically,
 * --exit-zero, --color=WHEN with colored diagnostics on a terminal, and the
 * short usage on a bad option.
 *
 * A program's main:
 *
 *     cli_init("irlint");                 // first: color of stderr (auto)
 *     static const struct option longopts[] = {
 *         ...
 *         CLI_LONG_OPTIONS,               // --output --exit-zero --color
 *         { NULL, 0, NULL, 0 }
 *     };
 *     while ((c = getopt_long(argc, argv, "o:...hV", longopts, NULL)) != -1) {
 *         switch (c) {
 *         ...
 *         case 'V': return cli_version();
 *         default:                        // -o, --exit-zero, --color; or
 *             if (!cli_opt(c, optarg, "[OPTION]... [FILE]...")) return 2;  // usage
 *             break;
 *         }
 *     }
 *     if (cli_output_begin() != 0) return 2;  // before anything is written
 *     ...                                       // write to stdout as before
 *     return cli_exit(rc);                     // rename, or remove; --exit-zero
 *
 * --output FILE: standard output (file descriptor 1) is a temporary file
 * beside FILE from cli_output_begin on; cli_exit(0 or 1) renames it over
 * FILE. Any other end — cli_exit(2), exit(2), a return from main without
 * cli_exit, SIGINT, SIGTERM, SIGHUP (unless ignored when the program
 * started: nohup) — removes it, so FILE is either the old file, untouched,
 * or the complete new one. "-o -" is stdout. (SIGKILL cannot be caught: it
 * leaves the temporary file, never a half FILE.)
 *
 * Colors: on when --color=always, or (--color=auto, the default) when
 * standard error is a terminal, NO_COLOR is unset or empty and TERM is not
 * dumb; never with --color=never. Colored like gcc: the location
 * ("file:line:col:") in bold, "error:" red, "warning:" magenta, "note:"
 * cyan — the keyword at the start of a line or after ": ". When colors are
 * on, stderr is a line-buffered stream (fopencookie) that colors each line
 * on its way to file descriptor 2, so the libraries print as before. glibc
 * only (stderr is assignable there); elsewhere nothing is colored.
 */
#ifndef DIAGRAMIR_CLI_H
#define DIAGRAMIR_CLI_H

#include <getopt.h>
#include <stdio.h>

/* The one version of every program. */
#define DIAGRAMIR_VERSION "0.1.0"

enum { CLI_OPT_EXIT_ZERO = 0x4300, CLI_OPT_COLOR };

#define CLI_LONG_OPTIONS                                          \
    { "output", required_argument, NULL, 'o' },                   \
    { "exit-zero", no_argument, NULL, CLI_OPT_EXIT_ZERO },        \
    { "color", optional_argument, NULL, CLI_OPT_COLOR },          \
    { "colour", optional_argument, NULL, CLI_OPT_COLOR }

/* The --help lines of the options above, their descriptions from column
 * col (the program's own: 21 for "  -i, --id=ID       ..."). */
const char *cli_help(int col);

/* Remembers the program's name and decides the color of stderr from the
 * environment (--color may change it later). Call first. */
void cli_init(const char *prog);
const char *cli_prog(void);

/* The default case of a program's option switch: handles c when it is
 * one of CLI_LONG_OPTIONS' (or 'o') and returns 1; otherwise (an unknown
 * option, a missing argument: getopt has said which) prints the short
 * usage, "usage: PROG SYNOPSIS" and "Try 'PROG --help' for more
 * information.", and returns 0; a bad --color value: a message, 0. The
 * caller returns 2 on 0. */
int cli_opt(int c, const char *arg, const char *synopsis);

/* The FILE of -o (NULL when none, or "-"). */
const char *cli_output_path(void);

/* Prints "PROG (diagramir) VERSION" on stdout; returns 0. */
int cli_version(void);

/* The short usage of cli_opt alone (for a program's own argument
 * errors); returns 2. */
int cli_usage_error(const char *synopsis);

/* With -o FILE: standard output becomes a temporary file in FILE's
 * directory, removed on any end but a successful cli_exit. Returns 0, or
 * 2 after a message when the file cannot be made. */
int cli_output_begin(void);

/* The end of a run with status rc (0, 1 findings, 2 error): flushes
 * stdout (a write error makes rc 2), renames the temporary file over FILE
 * when rc is 0 or 1 or removes it, and returns the exit status: rc, or 0
 * for 1 with --exit-zero. */
int cli_exit(int rc);

/* Whether --exit-zero was given. */
int cli_exit_zero(void);

/* Whether diagnostics are colored (tests). */
int cli_color(void);

/* Control characters in S (a newline in a name read from input or made up
 * by a model) become spaces, in place: a diagnostic stays one line. */
void cli_one_line(char *s);

#endif
