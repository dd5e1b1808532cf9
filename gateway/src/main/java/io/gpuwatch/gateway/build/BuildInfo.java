package io.gpuwatch.gateway.build;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * What this gateway was built from: the Maven project version and the git revision, written into a resource at
 * build time (gateway/pom.xml), and the Java version it runs on. "unknown" for what the build could not tell.
 */
public record BuildInfo(String version, String revision, String javaVersion) {
    static final String RESOURCE = "build-info.properties";
    private static final String UNKNOWN = "unknown";
    private static final BuildInfo CURRENT = load();

    /** The build info of the running gateway, read once. */
    public static BuildInfo current() {
        return CURRENT;
    }

    static BuildInfo load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                    p.load(r);
                }
            }
        } catch (IOException e) {
            // an unreadable resource leaves every field unknown; build info must never stop the gateway
        }
        return of(p, System.getProperty("java.version"));
    }

    /** The build info these properties give, a missing or blank field "unknown". */
    static BuildInfo of(Properties p, String javaVersion) {
        return new BuildInfo(field(p.getProperty("version")), field(p.getProperty("revision")), field(javaVersion));
    }

    private static String field(String value) {
        // an unexpanded ${...} is a build that could not fill it in
        return value == null || value.isBlank() || value.startsWith("${") ? UNKNOWN : value.strip();
    }
}
