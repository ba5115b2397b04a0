/* The fmi2CallbackLogger that `fmu3d simulate X.fmu` gives an FMU: it formats the variadic
 * message as printf would and passes the finished text to fmu3d_log_sink (Rust). */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void fmu3d_log_sink(void *environment, const char *instance, int status, const char *category,
                    const char *message);

void fmu3d_logger(void *environment, const char *instance, int status, const char *category,
                  const char *format, ...) {
    va_list args;
    va_list measure;
    va_start(args, format);
    va_copy(measure, args);
    int length = vsnprintf(NULL, 0, format, measure);
    va_end(measure);
    char *text = length >= 0 ? malloc((size_t)length + 1) : NULL;
    if (text != NULL) {
        vsnprintf(text, (size_t)length + 1, format, args);
        fmu3d_log_sink(environment, instance, status, category, text);
        free(text);
    } else {
        fmu3d_log_sink(environment, instance, status, category, format);
    }
    va_end(args);
}
