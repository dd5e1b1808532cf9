package io.gpuwatch.probe.attribution;

import java.util.Map;

/** Kubernetes labels of the pods on this node, looked up by pod UID without waiting. */
@FunctionalInterface
public interface PodLabelSource {
    /** The pod's labels; empty when the pod is not known (yet). */
    Map<String, String> labelsOf(String podUid);
}
