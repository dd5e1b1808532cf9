package io.gpuwatch.rules;

import java.util.Locale;

/** Which layer of the monitoring model a rule belongs to; written lower case in rule files. */
public enum Layer {
    /** Is the hardware healthy? */
    DEVICE,
    /** Are resources allocated sensibly? */
    SCHEDULING,
    /** Does the service meet its targets? */
    APPLICATION,
    /** Is the money well spent? */
    BUSINESS;

    /** The name rule files and alert labels use. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
