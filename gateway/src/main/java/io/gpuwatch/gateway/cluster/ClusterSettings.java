package io.gpuwatch.gateway.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;

import java.util.List;
import java.util.Map;

/**
 * How a gateway joins its peers: Hazelcast on {@code host:port}, TCP-IP join to {@code members} (multicast and
 * auto-detection off), and the probe URL it tells redirected probes. Failure detection is tight so that a
 * killed gateway is dropped within about {@link #NO_HEARTBEAT_SECONDS} seconds, and its probes move on well
 * inside 10 s.
 *
 * @param host     address Hazelcast and the event bus bind to and advertise
 * @param port     Hazelcast member port
 * @param members  {@code host:port} of the members to join; may include this one
 * @param probeUrl this gateway's {@code ws://} or {@code wss://} probe endpoint as probes reach it
 */
public record ClusterSettings(String host, int port, List<String> members, String probeUrl) {
    /** The cluster's name: gateways only join a cluster of this name. */
    public static final String NAME = "gpuwatch";
    /** Heartbeats between members, seconds. */
    public static final int HEARTBEAT_SECONDS = 1;
    /** A member silent this long is dropped, seconds. */
    public static final int NO_HEARTBEAT_SECONDS = 5;

    /** @throws IllegalArgumentException naming the member that is not {@code host:port}, or a bad port */
    public ClusterSettings {
        members = List.copyOf(members);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("--cluster-port: expected 1 to 65535, got " + port);
        }
        for (String m : members) {
            int colon = m.lastIndexOf(':');
            if (colon <= 0 || !m.substring(colon + 1).matches("\\d{1,5}")) {
                throw new IllegalArgumentException("--cluster-members: expected HOST:PORT, got '" + m + "'");
            }
        }
    }

    /** The Hazelcast member configuration: Vert.x's own map settings plus this network and these timeouts. */
    public Config hazelcast() {
        Config c = ConfigUtil.loadConfig();
        c.setClusterName(NAME);
        for (Map.Entry<String, String> p : properties().entrySet()) {
            c.setProperty(p.getKey(), p.getValue());
        }
        NetworkConfig net = c.getNetworkConfig();
        net.setPort(port).setPortAutoIncrement(false).setPublicAddress(host + ":" + port);
        JoinConfig join = net.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(2).setMembers(members);
        return c;
    }

    /** The Hazelcast properties set, by name: the values docs/operations.md lists. */
    public Map<String, String> properties() {
        return Map.of(
                "hazelcast.heartbeat.interval.seconds", String.valueOf(HEARTBEAT_SECONDS),
                "hazelcast.max.no.heartbeat.seconds", String.valueOf(NO_HEARTBEAT_SECONDS),
                // join at once instead of waiting 5 s for more members to show up
                "hazelcast.wait.seconds.before.join", "0",
                // gateways started at the same moment may form two clusters; merge them within seconds
                "hazelcast.merge.first.run.delay.seconds", "5",
                "hazelcast.merge.next.run.delay.seconds", "5",
                "hazelcast.local.localAddress", host,
                "hazelcast.socket.bind.any", "false",
                "hazelcast.phone.home.enabled", "false",
                "hazelcast.logging.type", "jdk");
    }

    /** Vert.x options whose clustered event bus binds to {@code host}. */
    public VertxOptions vertxOptions() {
        VertxOptions o = new VertxOptions();
        o.getEventBusOptions().setHost(host).setPort(0);
        return o;
    }
}
