package io.gpuwatch.probe.nvml;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;

/**
 * The two NVLink queries, JNA direct-mapped: an 18-link card takes 90 of them per poll (of about 113 NVML calls),
 * and a direct call skips the proxy and reflection an interface call pays each time. Native methods bind to one
 * library per JVM, so an {@link Nvml} on any other library keeps the interface calls.
 */
final class NvlinkCalls {
    private static String bound;

    private NvlinkCalls() {
    }

    static native int nvmlDeviceGetNvLinkState(Pointer device, int link, IntByReference isActive);

    static native int nvmlDeviceGetNvLinkErrorCounter(Pointer device, int link, int counter, LongByReference value);

    /** Binds the calls to this library unless they are bound to another; true when they call into this one. */
    static synchronized boolean bind(String library) {
        if (bound == null) {
            try {
                Native.register(NvlinkCalls.class, NativeLibrary.getInstance(library));
                bound = library;
            } catch (UnsatisfiedLinkError e) {
                // a driver without NVLink queries: the interface calls answer FUNCTION_NOT_FOUND per call
                return false;
            }
        }
        return bound.equals(library);
    }
}
