package io.gpuwatch.probe.attribution;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How to reach the kubelet's read-only pod list ({@code GET <url>/pods}).
 *
 * @param url                base URL, like {@code https://node-17:10250}
 * @param tokenFile          bearer token, read again at each refresh because projected tokens rotate
 * @param caFile             PEM bundle that signs the kubelet's serving certificate; null for the JVM's trust store
 * @param insecureSkipVerify accept any serving certificate (kubelets with self-signed certificates)
 * @param refreshEvery       how often the pod list is fetched again
 * @param timeout            deadline of one fetch
 */
public record KubeletConfig(String url, Path tokenFile, Path caFile, boolean insecureSkipVerify, Duration refreshEvery,
                            Duration timeout) {
    /** The in-cluster service-account token. */
    public static final Path SERVICE_ACCOUNT_TOKEN = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/token");
    /** The in-cluster service-account CA bundle. */
    public static final Path SERVICE_ACCOUNT_CA = Path.of("/var/run/secrets/kubernetes.io/serviceaccount/ca.crt");

    /** The kubelet of {@code node} on port 10250 with the service account's token and CA, refreshed every 30 s. */
    public static KubeletConfig of(String node) {
        return new KubeletConfig("https://" + node + ":10250", SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_CA, false,
                Duration.ofSeconds(30), Duration.ofSeconds(5));
    }

    public KubeletConfig withUrl(String url) {
        return new KubeletConfig(url, tokenFile, caFile, insecureSkipVerify, refreshEvery, timeout);
    }

    public KubeletConfig withTokenFile(Path tokenFile) {
        return new KubeletConfig(url, tokenFile, caFile, insecureSkipVerify, refreshEvery, timeout);
    }

    public KubeletConfig withCaFile(Path caFile) {
        return new KubeletConfig(url, tokenFile, caFile, insecureSkipVerify, refreshEvery, timeout);
    }

    public KubeletConfig withInsecureSkipVerify(boolean insecureSkipVerify) {
        return new KubeletConfig(url, tokenFile, caFile, insecureSkipVerify, refreshEvery, timeout);
    }

    public KubeletConfig withRefreshEvery(Duration refreshEvery) {
        return new KubeletConfig(url, tokenFile, caFile, insecureSkipVerify, refreshEvery, timeout);
    }

    public KubeletConfig withTimeout(Duration timeout) {
        return new KubeletConfig(url, tokenFile, caFile, insecureSkipVerify, refreshEvery, timeout);
    }
}
