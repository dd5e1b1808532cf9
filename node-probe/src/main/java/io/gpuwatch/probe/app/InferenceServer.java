package io.gpuwatch.probe.app;

import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;

import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The inference servers whose {@code /metrics} the probe reads, and how each one's metrics become application
 * readings (docs/attribution.md lists which metric feeds which field).
 */
public enum InferenceServer {
    /** vLLM (V1 engine names), labels {@code model_name} and {@code engine} (data-parallel engines add up). */
    VLLM("vllm", "vllm:", "model_name", Set.of()) {
        @Override
        void map(Window w, MetricValues.Builder b) {
            Predicate<Map<String, String>> finished =
                    l -> VLLM_NORMAL_FINISH.contains(l.getOrDefault("finished_reason", "stop"));
            set(b, Metric.TOKENS_PER_SEC, w.rate("vllm:generation_tokens_total"));
            set(b, Metric.REQUESTS_PER_SEC, w.rate("vllm:request_success_total", finished));
            set(b, Metric.TTFT_P50_MS, 1000 * w.quantile(0.5, "vllm:time_to_first_token_seconds"));
            set(b, Metric.TTFT_P99_MS, 1000 * w.quantile(0.99, "vllm:time_to_first_token_seconds"));
            set(b, Metric.LATENCY_P99_MS, 1000 * w.quantile(0.99, "vllm:e2e_request_latency_seconds"));
            set(b, Metric.QUEUE_LENGTH, w.gauge("vllm:num_requests_waiting"));
            set(b, Metric.BATCH_SIZE, w.gauge("vllm:num_requests_running"));
            double kv = w.gaugeMax("vllm:kv_cache_usage_perc");
            // the name up to vLLM 0.11 (V0, and V1 while it kept the old name beside the new)
            set(b, Metric.KV_CACHE_USAGE, Double.isNaN(kv) ? w.gaugeMax("vllm:gpu_cache_usage_perc") : kv);
            // V1 counts no client cancellation here (vLLM issue #31503): what is left is the engine's own aborts
            // and errors
            set(b, Metric.FAILED_TOTAL, w.cumulative(Metric.FAILED_TOTAL, "vllm:request_success_total",
                    finished.negate()));
            set(b, Metric.RETRIED_TOTAL, w.cumulative(Metric.RETRIED_TOTAL, "vllm:num_preemptions_total"));
        }
    },
    /** Hugging Face Text Generation Inference, unlabelled series named as its docs write them. */
    TGI("tgi", "tgi_", null, Set.of()) {
        @Override
        void map(Window w, MetricValues.Builder b) {
            Predicate<Map<String, String>> client = l -> TGI_CLIENT_ERRORS.contains(l.get("err"));
            Predicate<Map<String, String>> overloaded = l -> "overloaded".equals(l.get("err"));
            set(b, Metric.TOKENS_PER_SEC, w.rate("tgi_request_generated_tokens_sum"));
            set(b, Metric.REQUESTS_PER_SEC, w.rate("tgi_request_success"));
            set(b, Metric.LATENCY_P99_MS, 1000 * w.quantile(0.99, "tgi_request_duration"));
            set(b, Metric.QUEUE_LENGTH, w.gauge("tgi_queue_size"));
            set(b, Metric.BATCH_SIZE, w.gauge("tgi_batch_current_size"));
            set(b, Metric.FAILED_TOTAL, w.cumulative(Metric.FAILED_TOTAL, "tgi_request_failure",
                    client.or(overloaded).negate()));
            set(b, Metric.CLIENT_ERRORS_TOTAL, w.cumulative(Metric.CLIENT_ERRORS_TOTAL, "tgi_request_failure",
                    client));
            set(b, Metric.OVERLOADED_TOTAL, w.cumulative(Metric.OVERLOADED_TOTAL, "tgi_request_failure",
                    overloaded));
        }
    },
    /**
     * NVIDIA Triton Inference Server, labels {@code model} and {@code version}. A target reads one model: Triton
     * serves many, and its first-response histogram exists for non-streaming models too.
     */
    TRITON("triton", "nv_inference_", "model", Set.of()) {
        @Override
        void map(Window w, MetricValues.Builder b) {
            Predicate<Map<String, String>> rejected = l -> "REJECTED".equals(l.get("reason"));
            Predicate<Map<String, String>> canceled = l -> "CANCELED".equals(l.get("reason"));
            double successes = w.increase("nv_inference_request_success");
            set(b, Metric.REQUESTS_PER_SEC, w.rate("nv_inference_request_success"));
            // only with --metrics-config histogram_latencies=true; already in ms; the default buckets end at 5000
            set(b, Metric.TTFT_P50_MS, w.quantile(0.5, "nv_inference_first_response_histogram_ms"));
            set(b, Metric.TTFT_P99_MS, w.quantile(0.99, "nv_inference_first_response_histogram_ms"));
            // only with --metrics-config summary_latencies=true; Triton's own sliding window, in µs
            set(b, Metric.LATENCY_P99_MS, w.summaryMax("nv_inference_request_summary_us", 0.99) / 1000);
            // always there: the duration counter grows with each successful request, in µs
            set(b, Metric.LATENCY_MEAN_MS, successes > 0
                    ? w.increase("nv_inference_request_duration_us") / successes / 1000 : Double.NaN);
            set(b, Metric.QUEUE_LENGTH, w.gauge("nv_inference_pending_request_count"));
            double executions = w.increase("nv_inference_exec_count");
            // inferences per execution over the window: the mean dynamic batch size
            set(b, Metric.BATCH_SIZE, executions > 0 ? w.increase("nv_inference_count") / executions : Double.NaN);
            // a client's cancellation is neither the server's failure nor the client's error
            set(b, Metric.FAILED_TOTAL, w.cumulative(Metric.FAILED_TOTAL, "nv_inference_request_failure",
                    rejected.or(canceled).negate()));
            set(b, Metric.OVERLOADED_TOTAL, w.cumulative(Metric.OVERLOADED_TOTAL, "nv_inference_request_failure",
                    rejected));
        }
    },
    /**
     * SGLang with {@code --enable-metrics}, label {@code model_name}. Scheduler series carry {@code tp_rank},
     * {@code pp_rank} and {@code dp_rank}: with {@code --enable-metrics-for-all-schedulers} every rank of a
     * tensor-parallel group reports the same requests, so those count once; data-parallel ranks add up.
     */
    SGLANG("sglang", "sglang:", "model_name", Set.of("tp_rank", "pp_rank", "moe_ep_rank")) {
        @Override
        void map(Window w, MetricValues.Builder b) {
            Predicate<Map<String, String>> decode = l -> "decode".equals(l.get("mode"));
            // the scheduler's running count, updated each log interval, where the version has it; the other
            // counter grows only when a request finishes, all its tokens at once
            set(b, Metric.TOKENS_PER_SEC, w.has("sglang:realtime_tokens_total", decode)
                    ? w.rate("sglang:realtime_tokens_total", decode) : w.rate("sglang:generation_tokens_total"));
            set(b, Metric.REQUESTS_PER_SEC, w.rate("sglang:num_requests_total"));
            set(b, Metric.TTFT_P50_MS, 1000 * w.quantile(0.5, "sglang:time_to_first_token_seconds"));
            set(b, Metric.TTFT_P99_MS, 1000 * w.quantile(0.99, "sglang:time_to_first_token_seconds"));
            set(b, Metric.LATENCY_P99_MS, 1000 * w.quantile(0.99, "sglang:e2e_request_latency_seconds"));
            set(b, Metric.QUEUE_LENGTH, w.gauge("sglang:num_queue_reqs"));
            set(b, Metric.BATCH_SIZE, w.gauge("sglang:num_running_reqs"));
            set(b, Metric.KV_CACHE_USAGE, w.gaugeMax("sglang:token_usage"));
            set(b, Metric.FAILED_TOTAL, w.cumulative(Metric.FAILED_TOTAL, "sglang:num_aborted_requests_total"));
            set(b, Metric.RETRIED_TOTAL, w.cumulative(Metric.RETRIED_TOTAL, "sglang:num_retracted_requests_total"));
        }
    };

    // what a V1 engine finishes with (stop, length, abort, error, repetition): all but abort and error completed
    private static final Set<String> VLLM_NORMAL_FINISH = Set.of("stop", "length", "repetition");
    // TGI's err values it answers with HTTP 422; overloaded is 429, the rest (generation, incomplete_generation, …)
    // the server's own failures
    private static final Set<String> TGI_CLIENT_ERRORS =
            Set.of("validation", "template_error", "missing_template_variable", "tool_error");

    private final String source;
    private final String prefix;
    private final String modelLabel;
    private final Set<String> replicaLabels;

    InferenceServer(String source, String prefix, String modelLabel, Set<String> replicaLabels) {
        this.source = source;
        this.prefix = prefix;
        this.modelLabel = modelLabel;
        this.replicaLabels = replicaLabels;
    }

    /** The name in config files and in the {@code source} of app frames. */
    public String source() {
        return source;
    }

    /** The label that names the served model, or null when the server has none (TGI serves one model). */
    public String modelLabel() {
        return modelLabel;
    }

    /** True when a target of this server must name its model: the server mixes models' figures otherwise. */
    public boolean needsModel() {
        return this == TRITON;
    }

    /** Labels whose series repeat one another's figures, counted once (see {@link Window}). */
    Set<String> replicaLabels() {
        return replicaLabels;
    }

    /** What every metric of this server starts with. */
    String prefix() {
        return prefix;
    }

    /** The server called {@code source}, or null. */
    public static InferenceServer bySource(String source) {
        for (InferenceServer s : values()) {
            if (s.source.equals(source)) {
                return s;
            }
        }
        return null;
    }

    /** Sets the readings this server's metrics give over the window; NaN results are left unset. */
    abstract void map(Window w, MetricValues.Builder b);

    private static void set(MetricValues.Builder b, Metric m, double v) {
        if (!Double.isNaN(v)) {
            b.set(m, v);
        }
    }
}
