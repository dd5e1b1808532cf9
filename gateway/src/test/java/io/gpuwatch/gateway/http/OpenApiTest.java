package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.http.alertmanager.AlertmanagerApi;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/openapi.yaml and the mounted routes agree both ways: every /api/v1, /api/v2, /v1 (producers'), /-/ and scrape
 * route, with each of its methods, is in the file, and everything the file lists is mounted. Browsers' preflight
 * (OPTIONS) and the catch-all 404 of unknown /api paths are left out, as the file's description says.
 */
class OpenApiTest {
    private static final Path FILE = Path.of("../docs/openapi.yaml");
    private static final Set<String> ROLES = Set.of("open", "viewer", "operator", "admin", "signed", "probe");

    private Vertx vertx;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
    }

    @AfterEach
    void stop() {
        vertx.close();
    }

    /** What mounting reads of the gateway: its clock; anything else would be a change this test should see. */
    private static ApiHost host() {
        InstantSource clock = () -> Instant.EPOCH;
        return (ApiHost) Proxy.newProxyInstance(ApiHost.class.getClassLoader(), new Class<?>[] {ApiHost.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("clock")) {
                        return clock;
                    }
                    throw new UnsupportedOperationException("mounting the routes read " + method.getName());
                });
    }

    /** Every route the API mounts under /api/v1, /api/v2, /v1, /-/ and /metrics, as {@code METHOD /path/{param}}. */
    private Set<String> mounted() {
        Router router = Router.router(vertx);
        ApiHost host = host();
        new ApiRoutes(host, ApiAccess.open()).mount(router, List.of(AlertmanagerApi.extension(host)));
        Set<String> out = new TreeSet<>();
        for (Route r : router.getRoutes()) {
            // a path with parameters is matched as a regular expression; its name keeps the path as written
            String path = r.isRegexPath() ? r.getName() : r.getPath();
            if (path == null || path.endsWith("*")) {
                continue;
            }
            if (!path.startsWith("/api/v1/") && !path.startsWith("/api/v2/") && !path.startsWith("/-/")
                    && !path.startsWith("/metrics") && !path.startsWith("/v1/")) {
                continue;
            }
            assertTrue(r.methods() != null && !r.methods().isEmpty(), "route " + path + " takes every method");
            for (HttpMethod m : r.methods()) {
                if (m != HttpMethod.OPTIONS) {
                    out.add(m.name() + " " + path.replaceAll(":(\\w+)", "{$1}"));
                }
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec() throws IOException {
        return (Map<String, Object>) new Load(LoadSettings.builder().setLabel(FILE.toString()).build())
                .loadFromString(Files.readString(FILE));
    }

    @SuppressWarnings("unchecked")
    @Test
    void everyMountedRouteIsInTheFileAndEveryRouteOfTheFileIsMounted() throws IOException {
        Map<String, Object> spec = spec();
        assertTrue(String.valueOf(spec.get("openapi")).startsWith("3.0"), "an OpenAPI 3.0 file");
        Set<String> documented = new TreeSet<>();
        List<String> unroled = new ArrayList<>();
        for (Map.Entry<String, Object> path : ((Map<String, Object>) spec.get("paths")).entrySet()) {
            for (Map.Entry<String, Object> op : ((Map<String, Object>) path.getValue()).entrySet()) {
                if (op.getKey().equals("parameters")) {
                    continue;
                }
                String route = op.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
                documented.add(route);
                Map<String, Object> operation = (Map<String, Object>) op.getValue();
                if (!ROLES.contains(operation.get("x-gpuwatch-role")) || !(operation.get("responses") instanceof Map)) {
                    unroled.add(route);
                }
            }
        }
        Set<String> mounted = mounted();
        Set<String> undocumented = new TreeSet<>(mounted);
        undocumented.removeAll(documented);
        Set<String> unmounted = new TreeSet<>(documented);
        unmounted.removeAll(mounted);
        assertEquals(Set.of(), undocumented, "mounted but not in " + FILE);
        assertEquals(Set.of(), unmounted, "in " + FILE + " but not mounted");
        assertEquals(List.of(), unroled, "operations without x-gpuwatch-role or responses");
        assertTrue(mounted.contains("DELETE /api/v1/alerts/{fingerprint}/ack"), "methods count: " + mounted);
    }

    @SuppressWarnings("unchecked")
    @Test
    void everyReferenceInTheFileLeadsSomewhere() throws IOException {
        Map<String, Object> spec = spec();
        List<String> broken = new ArrayList<>();
        refs(spec, spec, broken);
        assertEquals(List.of(), broken);
    }

    @SuppressWarnings("unchecked")
    private static void refs(Object node, Map<String, Object> spec, List<String> broken) {
        if (node instanceof Map<?, ?> map) {
            Object ref = map.get("$ref");
            if (ref instanceof String target) {
                Object at = spec;
                for (String part : target.substring(2).split("/")) {
                    at = at instanceof Map<?, ?> m ? m.get(part) : null;
                }
                if (!target.startsWith("#/") || at == null) {
                    broken.add(target);
                }
            }
            map.values().forEach(v -> refs(v, spec, broken));
        } else if (node instanceof List<?> list) {
            list.forEach(v -> refs(v, spec, broken));
        }
    }
}
