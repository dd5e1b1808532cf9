package io.gpuwatch.rules;

import java.util.Locale;

/** How urgently a firing rule needs a human; written lower case in rule files. */
public enum Severity {
    /** Wake someone now. */
    PAGE,
    /** Open or update a ticket. */
    TICKET,
    /** Tell the team, no action expected now. */
    NOTICE,
    /** A periodic inspection item, only ever in digests. */
    INSPECT;

    /** The name rule files and alert labels use. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
