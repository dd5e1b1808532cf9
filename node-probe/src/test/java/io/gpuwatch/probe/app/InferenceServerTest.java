package io.gpuwatch.probe.app;

import io.gpuwatch.protocol.App;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Each server's two recorded scrapes, 10 s apart, and the readings they give (fixtures in resources/scrape). */
class InferenceServerTest {
    private static final Path SCRAPES = Path.of("src", "test", "resources", "scrape");
    private static final long T0 = 1_764_700_000_000L;
    private static final double EPS = 1e-9;

    private static Exposition scrape(String file) {
        try {
            Exposition e = ExpositionParser.parse(Files.readString(SCRAPES.resolve(file)));
            assertEquals(List.of(), e.errors(), file);
            return e;
        } catch (IOException ex) {
            throw new AssertionError(ex);
        }
    }

    private static TargetTracker tracker(InferenceServer server, String model) {
        return new TargetTracker(new ScrapeTarget("svc", "chat", server, "http://127.0.0.1:8000/metrics", model));
    }

    private static void assertValues(Map<Metric, Double> expected, MetricValues actual) {
        for (int i = 0; i < Metric.count(); i++) {
            Metric m = Metric.of(i);
            Double want = expected.get(m);
            if (want == null) {
                assertFalse(actual.has(m), () -> m.field() + " should be absent, got " + actual.get(m));
            } else {
                assertEquals(want, actual.get(m), EPS, m.field());
            }
        }
    }

    @Test
    void vllmFirstScrapeGivesGaugesAndCounterTotalsOnly() {
        App app = tracker(InferenceServer.VLLM, null).observe(scrape("vllm-1.txt"), T0);
        assertEquals(new App(0, T0, "svc", "chat", "vllm", app.values()), app);
        assertValues(Map.of(Metric.QUEUE_LENGTH, 4.0, Metric.BATCH_SIZE, 37.0, Metric.KV_CACHE_USAGE, 0.4,
                Metric.FAILED_TOTAL, 12.0, Metric.RETRIED_TOTAL, 5.0), app.values());
    }

    @Test
    void vllmSecondScrapeGivesRatesAndQuantilesOverTheWindow() {
        TargetTracker t = tracker(InferenceServer.VLLM, null);
        t.observe(scrape("vllm-1.txt"), T0);
        App app = t.observe(scrape("vllm-2.txt"), T0 + 10_000);
        assertValues(Map.of(
                Metric.TOKENS_PER_SEC, 51_200 / 10.0,
                Metric.REQUESTS_PER_SEC, (280 + 32) / 10.0,   // stop + length; the 3 aborts are failures
                Metric.TTFT_P50_MS, 300.0,                     // rank 100 of 200: 0.25 s + 0.25 s * 20/100
                Metric.TTFT_P99_MS, 1750.0,                    // rank 198: 1 s + 1.5 s * 2/4
                Metric.LATENCY_P99_MS, 25_000.0,               // rank 198: 20 s + 10 s * 2/4
                Metric.QUEUE_LENGTH, 14.0,
                Metric.BATCH_SIZE, 48.0,
                Metric.KV_CACHE_USAGE, 0.81,
                Metric.FAILED_TOTAL, 15.0,
                Metric.RETRIED_TOTAL, 7.0), app.values());
    }

    @Test
    void vllmRestartCountsTheNewValuesAsTheIncreaseAndKeepsTotalsRising() {
        TargetTracker t = tracker(InferenceServer.VLLM, null);
        t.observe(scrape("vllm-1.txt"), T0);
        t.observe(scrape("vllm-2.txt"), T0 + 10_000);
        App app = t.observe(scrape("vllm-restart.txt"), T0 + 20_000);
        assertValues(Map.of(
                Metric.TOKENS_PER_SEC, 300.0,
                Metric.REQUESTS_PER_SEC, 0.9,
                Metric.TTFT_P50_MS, 212.5,                     // rank 5 of 10: 0.1 s + 0.15 s * 3/4
                Metric.TTFT_P99_MS, 725.0,                     // rank 9.9: 0.5 s + 0.25 s * 0.9/1
                Metric.LATENCY_P99_MS, 19_750.0,               // rank 9.9: 15 s + 5 s * 1.9/2
                Metric.QUEUE_LENGTH, 0.0,
                Metric.BATCH_SIZE, 3.0,
                Metric.KV_CACHE_USAGE, 0.05,
                Metric.FAILED_TOTAL, 16.0,                     // 15 before the restart, 1 since
                Metric.RETRIED_TOTAL, 7.0), app.values());
    }

    @Test
    void vllmV1EnginesAddUpAndRepetitionIsANormalFinish() {
        // two data-parallel engines, each with the five finish reasons V1 creates up front
        TargetTracker t = tracker(InferenceServer.VLLM, null);
        assertValues(Map.of(Metric.QUEUE_LENGTH, 12.0, Metric.BATCH_SIZE, 111.0, Metric.KV_CACHE_USAGE, 0.4,
                Metric.FAILED_TOTAL, 36.0, Metric.RETRIED_TOTAL, 15.0),
                t.observe(scrape("vllm-v1-1.txt"), T0).values());
        assertValues(Map.of(
                Metric.TOKENS_PER_SEC, 3 * 51_200 / 10.0,
                Metric.REQUESTS_PER_SEC, 3 * (280 + 32 + 5) / 10.0,  // stop + length + repetition
                Metric.TTFT_P50_MS, 300.0,                         // engine 1 doubles engine 0: same quantiles
                Metric.TTFT_P99_MS, 1750.0,
                Metric.LATENCY_P99_MS, 25_000.0,
                Metric.QUEUE_LENGTH, 42.0,
                Metric.BATCH_SIZE, 144.0,
                Metric.KV_CACHE_USAGE, 0.81,                       // the fuller engine
                Metric.FAILED_TOTAL, 36.0 + 3 * (3 + 2),           // aborts and errors
                Metric.RETRIED_TOTAL, 21.0), t.observe(scrape("vllm-v1-2.txt"), T0 + 10_000).values());
    }

    @Test
    void aModelTheServerDoesNotServeGivesNoFrame() {
        assertNull(tracker(InferenceServer.VLLM, "mistralai/Mistral-7B").observe(scrape("vllm-1.txt"), T0));
        assertEquals(37.0, tracker(InferenceServer.VLLM, "meta-llama/Llama-3.1-70B-Instruct")
                .observe(scrape("vllm-1.txt"), T0).values().get(Metric.BATCH_SIZE));
    }

    @Test
    void anotherServersMetricsGiveNoFrame() {
        assertNull(tracker(InferenceServer.VLLM, null).observe(scrape("tgi-1.txt"), T0));
        assertNull(tracker(InferenceServer.SGLANG, null).observe(scrape("vllm-1.txt"), T0));
    }

    @Test
    void tgiGivesTokensFromGeneratedTokenSumsAndLatencyFromRequestDuration() {
        TargetTracker t = tracker(InferenceServer.TGI, null);
        assertValues(Map.of(Metric.QUEUE_LENGTH, 14.0, Metric.BATCH_SIZE, 32.0, Metric.FAILED_TOTAL, 3.0,
                Metric.CLIENT_ERRORS_TOTAL, 30.0), t.observe(scrape("tgi-1.txt"), T0).values());
        App app = t.observe(scrape("tgi-2.txt"), T0 + 10_000);
        // rank 247.5 of 250 lies halfway through the bucket (0.0001·1.5^30 s, 0.0001·1.5^31 s]
        double from = 19.175105923288406;
        double to = 28.76265888493261;
        assertValues(Map.of(
                Metric.TOKENS_PER_SEC, 64_000 / 10.0,
                Metric.REQUESTS_PER_SEC, 250 / 10.0,
                Metric.LATENCY_P99_MS, 1000 * (from + (to - from) * 1.5 / 3),
                Metric.QUEUE_LENGTH, 9.0,
                Metric.BATCH_SIZE, 48.0,
                Metric.FAILED_TOTAL, 4.0,                      // +1 generation
                Metric.CLIENT_ERRORS_TOTAL, 33.0,              // +2 validation, +1 template_error (a new series)
                Metric.OVERLOADED_TOTAL, 2.0), app.values());  // answered 429
        assertEquals("tgi", app.source());
    }

    @Test
    void tgiRestartWithoutCreatedTimesIsSeenFromFallingCounters() {
        TargetTracker t = tracker(InferenceServer.TGI, null);
        t.observe(scrape("tgi-1.txt"), T0);
        t.observe(scrape("tgi-2.txt"), T0 + 10_000);
        MetricValues v = t.observe(scrape("tgi-restart.txt"), T0 + 20_000).values();
        assertEquals(980, v.get(Metric.TOKENS_PER_SEC), EPS);
        assertEquals(3.5, v.get(Metric.REQUESTS_PER_SEC), EPS);
        assertEquals(34, v.get(Metric.CLIENT_ERRORS_TOTAL), EPS);
        // the restarted server has failed nothing yet and has no such series: the total waits for it
        assertFalse(v.has(Metric.FAILED_TOTAL));
    }

    @Test
    void tritonReadsOneModelEachWithItsOwnFirstResponseHistogram() {
        TargetTracker llm = tracker(InferenceServer.TRITON, "tensorrt_llm");
        assertValues(Map.of(Metric.QUEUE_LENGTH, 4.0, Metric.FAILED_TOTAL, 0.0, Metric.OVERLOADED_TOTAL, 0.0,
                Metric.LATENCY_P99_MS, 7900.001), llm.observe(scrape("triton-1.txt"), T0).values());
        assertValues(Map.of(
                Metric.REQUESTS_PER_SEC, 100 / 10.0,
                Metric.TTFT_P50_MS, 420.0,                     // rank 50 of 100: 100 ms + 400 ms * 40/50
                Metric.TTFT_P99_MS, 3500.0,                    // rank 99: 2000 ms + 3000 ms * 1/2
                Metric.LATENCY_P99_MS, 7712.55,                // Triton's own p99, in ms
                Metric.LATENCY_MEAN_MS, 270_887_890 / 100.0 / 1000,
                Metric.QUEUE_LENGTH, 1.0,
                Metric.BATCH_SIZE, 100 / 20.0,
                Metric.FAILED_TOTAL, 0.0,                      // 3 cancelled by the client: no failure
                Metric.OVERLOADED_TOTAL, 0.0), llm.observe(scrape("triton-2.txt"), T0 + 10_000).values());
    }

    @Test
    void tritonsImageModelHasAFirstResponseHistogramTooAndStaysOutOfTheLlmsFigures() {
        TargetTracker image = tracker(InferenceServer.TRITON, "resnet50");
        image.observe(scrape("triton-1.txt"), T0);
        assertValues(Map.of(
                Metric.REQUESTS_PER_SEC, 50.0,
                Metric.TTFT_P50_MS, 100 * 250 / 498.0,         // 498 of the 500 answered within 100 ms
                Metric.TTFT_P99_MS, 100 * 495 / 498.0,
                Metric.LATENCY_P99_MS, 48.211,
                Metric.LATENCY_MEAN_MS, 25_169_472 / 500.0 / 1000,
                Metric.QUEUE_LENGTH, 6.0,
                Metric.BATCH_SIZE, 8.0,
                Metric.FAILED_TOTAL, 4.0,                      // BACKEND 2 → 4; CANCELED is the client's
                Metric.OVERLOADED_TOTAL, 1.0), image.observe(scrape("triton-2.txt"), T0 + 10_000).values());
    }

    @Test
    void tritonWithoutSummariesStillHasAMeanLatency() {
        TargetTracker t = tracker(InferenceServer.TRITON, "m");
        String before = "nv_inference_request_success{model=\"m\",version=\"1\"} 10\n"
                + "nv_inference_request_duration_us{model=\"m\",version=\"1\"} 1000000\n";
        String after = "nv_inference_request_success{model=\"m\",version=\"1\"} 30\n"
                + "nv_inference_request_duration_us{model=\"m\",version=\"1\"} 1900000\n";
        t.observe(ExpositionParser.parse(before), T0);
        MetricValues v = t.observe(ExpositionParser.parse(after), T0 + 10_000).values();
        assertEquals(45, v.get(Metric.LATENCY_MEAN_MS), EPS);   // 900 ms over 20 requests
        assertFalse(v.has(Metric.LATENCY_P99_MS));
    }

    @Test
    void sglangGivesEveryLlmReading() {
        TargetTracker t = tracker(InferenceServer.SGLANG, null);
        assertValues(Map.of(Metric.QUEUE_LENGTH, 30.0, Metric.BATCH_SIZE, 162.0, Metric.KV_CACHE_USAGE, 0.28,
                Metric.FAILED_TOTAL, 4.0, Metric.RETRIED_TOTAL, 9.0), t.observe(scrape("sglang-1.txt"), T0).values());
        assertValues(Map.of(
                Metric.TOKENS_PER_SEC, 42_428 / 10.0,
                Metric.REQUESTS_PER_SEC, 12.0,
                Metric.TTFT_P50_MS, 440.0,                     // rank 60 of 120: 0.4 s + 0.2 s * 10/50
                Metric.TTFT_P99_MS, 1400.0,                    // rank 118.8: 1 s + 1 s * 0.8/2
                Metric.LATENCY_P99_MS, 17_000.0,               // rank 118.8: 10 s + 10 s * 2.8/4
                Metric.QUEUE_LENGTH, 41.0,
                Metric.BATCH_SIZE, 170.0,
                Metric.KV_CACHE_USAGE, 0.91,
                Metric.FAILED_TOTAL, 6.0,
                Metric.RETRIED_TOTAL, 11.0), t.observe(scrape("sglang-2.txt"), T0 + 10_000).values());
    }

    @Test
    void sglangCountsTensorParallelRanksOnceAndTakesTokensFromTheRealtimeCounter() {
        // dp 2 × tp 2 with --enable-metrics-for-all-schedulers: ranks 0 and 1 repeat dp 0's figures, 2 and 3 dp 1's
        TargetTracker t = tracker(InferenceServer.SGLANG, null);
        assertValues(Map.of(Metric.QUEUE_LENGTH, 8.0, Metric.BATCH_SIZE, 108.0, Metric.KV_CACHE_USAGE, 0.65,
                Metric.FAILED_TOTAL, 3.0, Metric.RETRIED_TOTAL, 3.0),
                t.observe(scrape("sglang-tp-1.txt"), T0).values());
        assertValues(Map.of(
                Metric.TOKENS_PER_SEC, (18_000 + 16_000) / 10.0, // decode tokens, not the 30,000 finished ones
                Metric.REQUESTS_PER_SEC, 10.0,
                Metric.TTFT_P50_MS, 400.0,                     // rank 50 of 100: 0.2 s + 0.2 s * 40/40
                Metric.TTFT_P99_MS, 1800.0,                    // rank 99: 1 s + 1 s * 4/5
                Metric.LATENCY_P99_MS, 15_000.0,               // rank 99: 10 s + 10 s * 1/2
                Metric.QUEUE_LENGTH, 10.0,
                Metric.BATCH_SIZE, 115.0,
                Metric.KV_CACHE_USAGE, 0.75,
                Metric.FAILED_TOTAL, 4.0,
                Metric.RETRIED_TOTAL, 4.0), t.observe(scrape("sglang-tp-2.txt"), T0 + 10_000).values());
    }

    @Test
    void readingsTheProtocolWouldRejectAreDroppedNotSent() {
        App app = tracker(InferenceServer.VLLM, null).observe(ExpositionParser.parse(
                "vllm:kv_cache_usage_perc 1.5\nvllm:num_requests_waiting -1\nvllm:num_requests_running +Inf\n"
                        + "vllm:num_preemptions_total 2\n"), T0);
        assertValues(Map.of(Metric.RETRIED_TOTAL, 2.0), app.values());
    }

    @Test
    void theOldKvCacheNameIsReadWhenTheNewOneIsAbsent() {
        App app = tracker(InferenceServer.VLLM, null).observe(ExpositionParser.parse(
                "vllm:gpu_cache_usage_perc{model_name=\"m\"} 0.5\n"), T0);
        assertEquals(0.5, app.values().get(Metric.KV_CACHE_USAGE));
    }

    @Test
    void serversAreNamedAsInConfigFiles() {
        assertEquals(InferenceServer.TRITON, InferenceServer.bySource("triton"));
        assertNull(InferenceServer.bySource("ollama"));
    }
}
