/* pylib_main.c — the kit's libflipkit.so hands the Python binding the reference track and the
 * OpenCL pipeline when the library is loaded, as reference/flipsim_main.c hands them to cli_main.
 * flipkit reference/: linked into the library only (the student kit's has no such file). */
#include "devices.h"
#include "pyapi.h"
#include "reference.h"

/* A shared library has no main: this runs when ctypes loads it, before any fk_ call. */
__attribute__((constructor)) static void pylib_hand_in(void)
{
    pyapi_use(&reference_track, &opencl_devices);
}
