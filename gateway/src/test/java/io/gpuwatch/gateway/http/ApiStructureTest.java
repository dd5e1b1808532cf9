package io.gpuwatch.gateway.http;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HTTP surface depends on what the gateway hands it ({@link ApiHost}), never on the gateway: no cycle. */
class ApiStructureTest {
    /** The gateway's root package: Gateway, GatewayConfig, GatewayStats. */
    private static final Pattern ROOT = Pattern.compile("io\\.gpuwatch\\.gateway\\.[A-Z]\\w*");

    @Test
    void noSourceOfTheHttpPackageNamesATypeOfTheGatewaysRootPackage() throws IOException {
        Path http = Path.of("src/main/java/io/gpuwatch/gateway/http");
        List<Path> sources;
        // its sub-packages too, such as the Alertmanager API
        try (Stream<Path> files = Files.walk(http)) {
            sources = files.filter(f -> f.toString().endsWith(".java")).toList();
        }
        assertTrue(sources.size() >= 5, "the http sources were found: " + sources);
        List<String> offending = sources.stream().filter(f -> {
            try {
                return ROOT.matcher(Files.readString(f)).find();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }).map(Path::toString).toList();
        assertEquals(List.of(), offending);
    }
}
