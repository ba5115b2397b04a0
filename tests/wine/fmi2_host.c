/* An FMI 2.0 importer as small as it can be, built from the same source for Linux (gcc, dlopen)
 * and for Windows (MinGW, LoadLibrary; run under Wine), so that one FMU's two binaries can be
 * run alike and their outputs compared (tests/python/test_windows.py).
 *
 *   fmi2_host LIBRARY RESOURCE_URI GUID cs|me STOP STEP TOLERANCE VR...
 *
 * Loads LIBRARY (binaries/<platform>/<id>.so or .dll of an unpacked FMU), instantiates it with
 * the resource location RESOURCE_URI, sets up the experiment (TOLERANCE 0: none defined, the
 * FMU's own), initializes it and runs it to STOP: Co-Simulation with
 * fmi2DoStep of STEP; Model Exchange with the classic fourth-order Runge-Kutta method at STEP,
 * the event indicators checked after every step (an event update where one changed sign) and
 * the completed integrator step reported. Prints a CSV line per step: the time and the real
 * variables VR..., with 17 significant digits (every bit of a double). Exits 1 with a message
 * on the first call that does not return fmi2OK. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

#ifdef _WIN32
#include <windows.h>
static void *open_library(const char *path) { return (void *)LoadLibraryA(path); }
static void *symbol(void *library, const char *name) {
    return (void *)GetProcAddress((HMODULE)library, name);
}
#else
#include <dlfcn.h>
static void *open_library(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *symbol(void *library, const char *name) { return dlsym(library, name); }
#endif

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...) {
    va_list args;
    (void)env;
    va_start(args, message);
    fprintf(stderr, "[%s %d %s] ", instance, (int)status, category);
    vfprintf(stderr, message, args);
    fputc('\n', stderr);
    va_end(args);
}

static void *library;

static void *function(const char *name) {
    void *f = symbol(library, name);
    if (!f) {
        fprintf(stderr, "the library exports no %s\n", name);
        exit(1);
    }
    return f;
}

#define CALL(name, ...)                                                          \
    do {                                                                         \
        fmi2Status status_ = ((name##TYPE *)function(#name))(__VA_ARGS__);       \
        if (status_ != fmi2OK) {                                                 \
            fprintf(stderr, "%s returned %d\n", #name, (int)status_);            \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static void print_row(fmi2Component c, double t, const fmi2ValueReference *vrs, size_t n) {
    double values[256];
    size_t i;
    CALL(fmi2GetReal, c, vrs, n, values);
    printf("%.17g", t);
    for (i = 0; i < n; i++) printf(",%.17g", values[i]);
    printf("\n");
}

/* Event iteration at the current time (FMI 2.0 §3.2.2). */
static void update_discrete_states(fmi2Component c) {
    fmi2EventInfo info;
    info.newDiscreteStatesNeeded = fmi2True;
    while (info.newDiscreteStatesNeeded) {
        CALL(fmi2NewDiscreteStates, c, &info);
        if (info.terminateSimulation) {
            fprintf(stderr, "the FMU asked to terminate\n");
            exit(1);
        }
    }
}

int main(int argc, char **argv) {
    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2ValueReference vrs[256];
    size_t n = 0, nx = 0, nz = 0, i;
    int me;
    double stop, step, tolerance, t = 0.0;
    fmi2Component c;
    if (argc < 8 || argc - 8 > 256) {
        fprintf(stderr, "usage: fmi2_host LIBRARY RESOURCE_URI GUID cs|me STOP STEP TOLERANCE VR...\n");
        return 2;
    }
    library = open_library(argv[1]);
    if (!library) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 1;
    }
    me = strcmp(argv[4], "me") == 0;
    stop = atof(argv[5]);
    step = atof(argv[6]);
    tolerance = atof(argv[7]);
    for (i = 8; i < (size_t)argc; i++) vrs[n++] = (fmi2ValueReference)strtoul(argv[i], NULL, 10);
    c = ((fmi2InstantiateTYPE *)function("fmi2Instantiate"))(
        "host", me ? fmi2ModelExchange : fmi2CoSimulation, argv[3], argv[2], &callbacks,
        fmi2False, fmi2False);
    if (!c) {
        fprintf(stderr, "fmi2Instantiate failed\n");
        return 1;
    }
    CALL(fmi2SetupExperiment, c, tolerance > 0.0, tolerance, 0.0, fmi2True, stop);
    CALL(fmi2EnterInitializationMode, c);
    CALL(fmi2ExitInitializationMode, c);
    if (!me) {
        print_row(c, t, vrs, n);
        for (i = 1; t < stop - 0.5 * step; i++) {
            CALL(fmi2DoStep, c, t, step, fmi2True);
            t = i * step;
            print_row(c, t, vrs, n);
        }
    } else {
        double *x, *k[4], *x1, *z, *z1;
        fmi2Boolean enter_event = fmi2False, terminate = fmi2False;
        int s;
        update_discrete_states(c);
        CALL(fmi2EnterContinuousTimeMode, c);
        nx = (size_t)atoi(getenv("FMU_STATES") ? getenv("FMU_STATES") : "0");
        nz = (size_t)atoi(getenv("FMU_INDICATORS") ? getenv("FMU_INDICATORS") : "0");
        x = calloc(nx + 1, sizeof *x);
        x1 = calloc(nx + 1, sizeof *x1);
        z = calloc(nz + 1, sizeof *z);
        z1 = calloc(nz + 1, sizeof *z1);
        for (s = 0; s < 4; s++) k[s] = calloc(nx + 1, sizeof *k[s]);
        CALL(fmi2GetContinuousStates, c, x, nx);
        CALL(fmi2GetEventIndicators, c, z, nz);
        print_row(c, t, vrs, n);
        for (i = 1; t < stop - 0.5 * step; i++) {
            const double weights[4] = {0.0, 0.5, 0.5, 1.0};
            size_t j;
            for (s = 0; s < 4; s++) {
                for (j = 0; j < nx; j++) x1[j] = x[j] + (s ? weights[s] * step * k[s - 1][j] : 0.0);
                CALL(fmi2SetTime, c, t + weights[s] * step);
                CALL(fmi2SetContinuousStates, c, x1, nx);
                CALL(fmi2GetDerivatives, c, k[s], nx);
            }
            for (j = 0; j < nx; j++)
                x[j] += step / 6.0 * (k[0][j] + 2.0 * k[1][j] + 2.0 * k[2][j] + k[3][j]);
            t = i * step;
            CALL(fmi2SetTime, c, t);
            CALL(fmi2SetContinuousStates, c, x, nx);
            CALL(fmi2CompletedIntegratorStep, c, fmi2True, &enter_event, &terminate);
            CALL(fmi2GetEventIndicators, c, z1, nz);
            for (j = 0; j < nz; j++)
                if ((z[j] > 0.0) != (z1[j] > 0.0)) enter_event = fmi2True;
            if (enter_event) {
                CALL(fmi2EnterEventMode, c);
                update_discrete_states(c);
                CALL(fmi2EnterContinuousTimeMode, c);
                CALL(fmi2GetContinuousStates, c, x, nx);
                CALL(fmi2GetEventIndicators, c, z1, nz);
            }
            memcpy(z, z1, nz * sizeof *z);
            print_row(c, t, vrs, n);
        }
    }
    CALL(fmi2Terminate, c);
    ((fmi2FreeInstanceTYPE *)function("fmi2FreeInstance"))(c);
    return 0;
}
