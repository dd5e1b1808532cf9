package io.gpuwatch.gateway.http;

import io.gpuwatch.gateway.auth.ApiTokens;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Who may use the HTTP API and how much (docs/api.md, Access): the API tokens (none: the API is open, on a
 * loopback address only), the browser origins allowed to call it across sites, whether {@code /metrics} is
 * open, and each caller's request rate.
 *
 * @param tokens         the API tokens now in force; read on every request, so a reloaded file takes effect
 * @param corsOrigins    origins (e.g. {@code https://grafana.example.com}) allowed besides the gateway's own
 * @param metricsOpen    true when {@code /metrics} needs no token
 * @param ratePerSecond  requests a token (or, on an open API, an address) may make per second, sustained
 * @param burst          requests it may make at once
 */
public record ApiAccess(Supplier<ApiTokens> tokens, Set<String> corsOrigins, boolean metricsOpen,
                        double ratePerSecond, int burst) {
    public ApiAccess {
        corsOrigins = Set.copyOf(corsOrigins);
        if (ratePerSecond <= 0 || burst < 1) {
            throw new IllegalArgumentException("the API rate must be positive and its burst at least 1");
        }
    }

    /** No tokens, no cross-site callers, metrics open, 50 requests a second with bursts of 100. */
    public static ApiAccess open() {
        return new ApiAccess(ApiTokens::none, Set.of(), true, 50, 100);
    }

    /** The same access with these tokens. */
    public ApiAccess withTokens(Supplier<ApiTokens> next) {
        return new ApiAccess(next, corsOrigins, metricsOpen, ratePerSecond, burst);
    }

    /**
     * Why a gateway with this access must not listen on {@code host}: an open API is only for a loopback
     * address. Empty when it may.
     */
    public Optional<String> refusal(String host) {
        if (!tokens.get().isEmpty() || loopback(host)) {
            return Optional.empty();
        }
        return Optional.of("refusing to listen on " + host + " with no API tokens: anyone who can reach it could "
                + "silence every alert. Create one with 'gpuwatch token new --role admin --name NAME --file FILE' "
                + "and pass --api-tokens FILE, or listen on a loopback address (127.0.0.1, the default)");
    }

    /** True for an address of this host's loopback interface (a name is looked up). */
    static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
