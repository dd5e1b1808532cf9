package io.gpuwatch.probe.attribution;

import java.util.List;
import java.util.Map;

/** Which Kubernetes pod labels name a pod's task, owner and business; for each field the first key present wins. */
public record PodLabelKeys(List<String> task, List<String> owner, List<String> business) {
    /** {@code gpuwatch.io/task}, {@code gpuwatch.io/owner}, {@code gpuwatch.io/business}. */
    public static final PodLabelKeys DEFAULT = new PodLabelKeys(List.of("gpuwatch.io/task"),
            List.of("gpuwatch.io/owner"), List.of("gpuwatch.io/business"));

    public PodLabelKeys {
        task = List.copyOf(task);
        owner = List.copyOf(owner);
        business = List.copyOf(business);
    }

    /** The attribution these keys read off a pod's labels. */
    public Attribution read(Map<String, String> labels) {
        return new Attribution(first(task, labels), first(owner, labels), first(business, labels));
    }

    private static String first(List<String> keys, Map<String, String> labels) {
        for (String k : keys) {
            String v = labels.get(k);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return null;
    }
}
