package io.gpuwatch.probe.app;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScrapeConfigLoaderTest {
    private static ScrapeConfig loaded(String yaml) {
        ScrapeConfigLoad load = ScrapeConfigLoader.parse("scrape.yaml", yaml);
        if (load instanceof ScrapeConfigLoad.Invalid invalid) {
            throw new AssertionError("expected the config to load, got " + invalid.errors());
        }
        return ((ScrapeConfigLoad.Loaded) load).config();
    }

    private static List<String> errors(String yaml) {
        return assertInstanceOf(ScrapeConfigLoad.Invalid.class, ScrapeConfigLoader.parse("scrape.yaml", yaml)).errors()
                .stream().map(ScrapeConfigError::toString).toList();
    }

    @Test
    void aFullConfigLoads() {
        ScrapeConfig c = loaded("""
                interval: 15s
                timeout: 2500ms
                targets:
                  - {task: svc-chat-70b, business: chat, server: vllm, url: "http://127.0.0.1:8000/metrics"}
                  - task: svc-ocr
                    server: triton
                    url: http://127.0.0.1:8002/metrics
                    model: resnet50
                  - {task: svc-tgi, server: tgi, url: "https://10.0.0.7:3000/metrics"}
                """);
        assertEquals(Duration.ofSeconds(15), c.interval());
        assertEquals(Duration.ofMillis(2500), c.timeout());
        assertEquals(List.of(
                new ScrapeTarget("svc-chat-70b", "chat", InferenceServer.VLLM, "http://127.0.0.1:8000/metrics", null),
                new ScrapeTarget("svc-ocr", null, InferenceServer.TRITON, "http://127.0.0.1:8002/metrics", "resnet50"),
                new ScrapeTarget("svc-tgi", null, InferenceServer.TGI, "https://10.0.0.7:3000/metrics", null)),
                c.targets());
    }

    @Test
    void intervalAndTimeoutHaveDefaultsAndTheTimeoutFitsTheInterval() {
        String target = "targets: [{task: a, server: sglang, url: \"http://127.0.0.1:30000/metrics\"}]\n";
        ScrapeConfig c = loaded(target);
        assertEquals(Duration.ofSeconds(10), c.interval());
        assertEquals(Duration.ofSeconds(5), c.timeout());
        assertEquals(Duration.ofSeconds(2), loaded("interval: 2s\n" + target).timeout());
    }

    @Test
    void targetErrorsNameTheirPlace() {
        assertEquals(List.of(
                "scrape.yaml:2:5: a target needs 'task'",
                "scrape.yaml:3:23: unknown server 'ollama'; known servers: vllm, tgi, triton, sglang",
                "scrape.yaml:4:34: 'url' must be an http:// or https:// address with a host, like "
                        + "http://127.0.0.1:8000/metrics, got 'ftp://x/metrics'",
                "scrape.yaml:5:58: tgi serves one model and labels no series with it; remove 'model'",
                "scrape.yaml:6:29: unknown key 'port'; known keys: business, model, server, task, url",
                "scrape.yaml:7:5: task 'b' already has a target; one target per task, as the gateway keeps one "
                        + "series per task",
                "scrape.yaml:8:5: triton serves several models and mixes their figures; a target needs 'model' "
                        + "(one target per model, each its own task)"),
                errors("""
                        targets:
                          - {server: vllm, url: "http://h/metrics"}
                          - {task: a, server: ollama, url: "http://h/metrics"}
                          - {task: b, server: vllm, url: "ftp://x/metrics"}
                          - {task: b, server: tgi, url: "http://h:3000/metrics", model: m}
                          - {task: b, server: vllm, port: 8000, url: "http://h/metrics"}
                          - {task: b, server: vllm, url: "http://h/metrics"}
                          - {task: c, server: triton, url: "http://h:8002/metrics"}
                        """));
    }

    @Test
    void durationErrorsNameTheirPlace() {
        String target = "targets: [{task: a, server: vllm, url: \"http://h/metrics\"}]\n";
        assertEquals(List.of("scrape.yaml:1:11: 'interval' must be a duration like 10s, 500ms or 1m, got '10'"),
                errors("interval: 10\n" + target));
        assertEquals(List.of("scrape.yaml:1:11: 'interval' must be between 1s and 60m"),
                errors("interval: 200ms\n" + target));
        assertEquals(List.of("scrape.yaml:2:10: 'timeout' must not be longer than 'interval' (5000ms)"),
                errors("interval: 5s\ntimeout: 6s\n" + target));
        assertEquals(List.of("scrape.yaml:1:10: 'timeout' must be longer than zero"), errors("timeout: 0s\n" + target));
    }

    @Test
    void theFileNeedsTargets() {
        assertEquals(List.of("scrape.yaml:1:1: missing 'targets'"), errors("interval: 10s\n"));
        assertEquals(List.of("scrape.yaml:1:10: 'targets' needs at least one target"), errors("targets: []\n"));
        assertEquals(List.of("scrape.yaml:1:10: 'targets' must be a list of targets, each starting with '-'"),
                errors("targets: {task: a}\n"));
        assertEquals(List.of("scrape.yaml: the scrape config is empty; it needs 'targets'"), errors("# nothing\n"));
        assertEquals(List.of("scrape.yaml:2:5: a target must be a mapping of keys to values"),
                errors("targets:\n  - http://h/metrics\n"));
    }

    @Test
    void brokenYamlAndMissingFilesAreErrorsNotExceptions(@TempDir Path dir) {
        List<String> e = errors("targets:\n  - {task: a\n");
        assertEquals(1, e.size());
        assertTrue(e.get(0).startsWith("scrape.yaml:3:1: not valid YAML: "), e.get(0));
        List<ScrapeConfigError> missing = assertInstanceOf(ScrapeConfigLoad.Invalid.class,
                ScrapeConfigLoader.load(dir.resolve("scrape.yaml"))).errors();
        assertTrue(missing.get(0).message().startsWith("cannot read: "), missing.get(0).message());
    }
}
