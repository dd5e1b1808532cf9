package io.gpuwatch.probe.app;

import java.util.Map;
import java.util.function.Predicate;

/**
 * One inference server endpoint to scrape and the task its readings belong to.
 *
 * @param business line of business, null when not given
 * @param model    only the series of this served model (vLLM/SGLang {@code model_name}, Triton {@code model});
 *                 null for all of them
 */
public record ScrapeTarget(String task, String business, InferenceServer server, String url, String model) {
    /** The series that name the configured model (all of them when no model is configured). */
    Predicate<Map<String, String>> modelSeries() {
        if (model == null || server.modelLabel() == null) {
            return labels -> true;
        }
        String label = server.modelLabel();
        return labels -> model.equals(labels.get(label));
    }

    /** Which series take part: those of the configured model, and those that name no model at all. */
    Predicate<Map<String, String>> filter() {
        if (model == null || server.modelLabel() == null) {
            return labels -> true;
        }
        String label = server.modelLabel();
        return labels -> {
            String m = labels.get(label);
            return m == null || m.equals(model);
        };
    }
}
