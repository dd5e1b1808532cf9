package io.gpuwatch.probe.sched;

import io.gpuwatch.protocol.SchedTask;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The model a job declares to its scheduler, read from text a user writes (a Slurm comment, pod annotations).
 * Anything that is not a valid declaration reads as none, never as a guess: a wrong N or precision would make
 * the task's effective compute wrong instead of unknown, and one team's typo must not stop a queue's reports.
 */
public final class ModelDeclaration {
    /** The marker a Slurm job comment carries its declaration after. */
    public static final String COMMENT_MARKER = "gpuwatch-model:";

    private ModelDeclaration() {
    }

    /** The model of these values (null where not given); null when {@code params} is missing or any is invalid. */
    public static SchedTask.Model of(String params, String workload, String precision, String flopsPerSample) {
        double n = positive(params);
        if (Double.isNaN(n)) {
            return null;
        }
        String w = workload == null ? SchedTask.Model.DEFAULT_WORKLOAD : workload.strip().toLowerCase(Locale.ROOT);
        String p = precision == null ? SchedTask.Model.DEFAULT_PRECISION
                : precision.strip().toLowerCase(Locale.ROOT);
        double f = flopsPerSample == null ? Double.NaN : positive(flopsPerSample);
        if (!SchedTask.Model.WORKLOADS.contains(w) || !SchedTask.Model.PRECISIONS.contains(p)
                || flopsPerSample != null && Double.isNaN(f)) {
            return null;
        }
        return new SchedTask.Model(n, w, p, flopsPerSample == null ? null : f);
    }

    /**
     * The declaration in a Slurm job comment: {@code gpuwatch-model: params=8.03e9 workload=training
     * precision=bf16 [flopsPerSample=…]}, after any other text; null without the marker or with a bad value.
     */
    public static SchedTask.Model ofComment(String comment) {
        int at = comment == null ? -1 : comment.indexOf(COMMENT_MARKER);
        if (at < 0) {
            return null;
        }
        Map<String, String> kv = new HashMap<>();
        for (String pair : comment.substring(at + COMMENT_MARKER.length()).strip().split("[\\s,;]+")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                kv.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return of(kv.get("params"), kv.get("workload"), kv.get("precision"), kv.get("flopsPerSample"));
    }

    private static double positive(String text) {
        if (text == null) {
            return Double.NaN;
        }
        try {
            double v = Double.parseDouble(text.strip());
            return Double.isFinite(v) && v > 0 ? v : Double.NaN;
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
