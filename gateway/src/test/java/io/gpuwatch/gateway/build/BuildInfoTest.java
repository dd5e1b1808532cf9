package io.gpuwatch.gateway.build;

import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The build's version and revision come from the resource the build writes; what it could not tell is unknown. */
class BuildInfoTest {
    @Test
    void theBuildWroteTheProjectVersionAndARevision() {
        BuildInfo current = BuildInfo.current();
        assertTrue(current.version().matches("\\d+\\.\\d+\\.\\d+.*"), current.version());
        assertTrue(current.revision().equals("unknown") || current.revision().matches("[0-9a-f]{7,40}"),
                current.revision());
        assertEquals(System.getProperty("java.version"), current.javaVersion());
    }

    @Test
    void aMissingBlankOrUnexpandedFieldIsUnknown() {
        Properties p = new Properties();
        p.setProperty("version", "1.2.3");
        p.setProperty("revision", "${build.revision}");
        assertEquals(new BuildInfo("1.2.3", "unknown", "unknown"), BuildInfo.of(p, " "));
        assertNotEquals("unknown", BuildInfo.of(p, "17.0.9").javaVersion());
        assertEquals(new BuildInfo("unknown", "unknown", "17"), BuildInfo.of(new Properties(), "17"));
    }
}
