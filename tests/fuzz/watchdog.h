/* watchdog.h — a per-input CPU watchdog for the fuzz harnesses: more than
 * FUZZ_INPUT_SECONDS (default 30) of CPU time on one input aborts, so that
 * the driver or libFuzzer saves the input as a hang instead of a smoke run
 * stalling for hours. The including harness defines HARNESS (its name, a
 * string literal) and includes <signal.h>, <stdlib.h>, <string.h>,
 * <time.h>, <unistd.h> first. */
#ifndef DIAGRAMIR_FUZZ_WATCHDOG_H
#define DIAGRAMIR_FUZZ_WATCHDOG_H

static timer_t watchdog;
static int watchdog_state; /* 0 not set up, 1 armed per input, -1 unavailable */
static long watchdog_seconds = 30;

static void on_watchdog(int sig)
{
    (void)sig;
    static const char m[] = ": one input took more than FUZZ_INPUT_SECONDS of CPU time (a hang)\n";
    if (write(2, HARNESS, sizeof HARNESS - 1) < 0 || write(2, m, sizeof m - 1) < 0) {
        /* nothing more to do */
    }
    abort();
}

static void watchdog_arm(int on)
{
    if (watchdog_state == 0) {
        const char *e = getenv("FUZZ_INPUT_SECONDS");
        if (e && atol(e) > 0) watchdog_seconds = atol(e);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_watchdog;
        sigemptyset(&sa.sa_mask);
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_SIGNAL;
        sev.sigev_signo = SIGUSR2;
        watchdog_state = sigaction(SIGUSR2, &sa, NULL) == 0 &&
                         timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &watchdog) == 0 ? 1 : -1;
    }
    if (watchdog_state != 1) return;
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = on ? watchdog_seconds : 0;
    timer_settime(watchdog, 0, &its, NULL);
}

#endif
