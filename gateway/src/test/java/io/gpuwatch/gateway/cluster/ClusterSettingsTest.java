package io.gpuwatch.gateway.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterSettingsTest {
    @Test
    void joinsByTcpIpOnTheNamedMembersOnlyWithTightFailureDetection() {
        ClusterSettings s = new ClusterSettings("127.0.0.1", 5701, List.of("127.0.0.1:5701", "127.0.0.1:5702"),
                "ws://127.0.0.1:9464/v1/probe");
        Config c = s.hazelcast();
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertFalse(join.getMulticastConfig().isEnabled(), "no multicast");
        assertFalse(join.getAutoDetectionConfig().isEnabled(), "no auto-detection");
        assertTrue(join.getTcpIpConfig().isEnabled());
        assertEquals(List.of("127.0.0.1:5701", "127.0.0.1:5702"), join.getTcpIpConfig().getMembers());
        assertEquals(5701, c.getNetworkConfig().getPort());
        assertFalse(c.getNetworkConfig().isPortAutoIncrement());
        assertEquals("5", c.getProperty("hazelcast.max.no.heartbeat.seconds"));
        assertEquals("1", c.getProperty("hazelcast.heartbeat.interval.seconds"));
        assertEquals("false", c.getProperty("hazelcast.phone.home.enabled"));
        assertEquals(ClusterSettings.NAME, c.getClusterName());
        assertTrue(c.getMapConfigs().containsKey("__vertx.nodeInfo"), "Vert.x's own map settings are kept");
    }

    @Test
    void aMemberThatIsNoHostAndPortIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ClusterSettings(
                "127.0.0.1", 5701, List.of("127.0.0.1:5701", "gw-2"), "ws://127.0.0.1:9464/v1/probe"));
        assertEquals("--cluster-members: expected HOST:PORT, got 'gw-2'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ClusterSettings("127.0.0.1", 0, List.of(), "ws://x"));
    }
}
