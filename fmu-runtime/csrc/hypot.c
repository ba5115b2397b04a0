/* hypot(x, y) = sqrt(x² + y²) without overflow, linked into the FMU's library with hidden
 * visibility. glibc 2.35 gave hypot a new symbol version; the SVD of nalgebra calls it, and a
 * reference to hypot@GLIBC_2.35 would stop the FMU from loading on any older Linux. With this
 * definition the library needs no hypot from libm at all. */

#include <math.h>

__attribute__((visibility("hidden"))) double hypot(double x, double y) {
    x = fabs(x);
    y = fabs(y);
    if (isinf(x) || isinf(y)) {
        return INFINITY;
    }
    if (isnan(x) || isnan(y)) {
        return x + y;
    }
    double larger = x > y ? x : y;
    double smaller = x > y ? y : x;
    if (larger == 0.0) {
        return 0.0;
    }
    double ratio = smaller / larger;
    return larger * sqrt(1.0 + ratio * ratio);
}
