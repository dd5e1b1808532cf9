package io.gpuwatch.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code gateway --cluster} refuses settings peers or probes could not use, before it joins anything. */
class GatewayClusterOptionsTest {
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private int gateway(Path dir, String listen, String... cluster) {
        Path tokens = dir.resolve("tokens");
        assertEquals(0, run("token", "new", "--node", "gpu-*", "--file", tokens.toString()));
        String[] base = {"gateway", "--tokens", tokens.toString(), "--rules", "../examples/rules", "--listen", listen,
                "--no-console", "--cluster"};
        String[] args = Arrays.copyOf(base, base.length + cluster.length);
        System.arraycopy(cluster, 0, args, base.length, cluster.length);
        return run(args);
    }

    @Test
    void aWildcardListenAddressNeedsTheAddressPeersReachItAt(@TempDir Path dir) {
        // every address needs API tokens first
        Path api = dir.resolve("api-tokens");
        assertEquals(0, run("token", "new", "--role", "admin", "--name", "ops", "--file", api.toString()));
        assertEquals(2, gateway(dir, "0.0.0.0:0", "--api-tokens", api.toString(), "--cluster-members", "127.0.0.1:5701"));
        assertTrue(err.toString().contains("give --cluster-host"), err.toString());
    }

    @Test
    void aClusterNeedsItsMembers(@TempDir Path dir) {
        assertEquals(2, gateway(dir, "127.0.0.1:0"));
        assertTrue(err.toString().contains("--cluster-members HOST:PORT"), err.toString());
    }

    @Test
    void aMemberThatIsNoHostAndPortIsNamed(@TempDir Path dir) {
        assertEquals(2, gateway(dir, "127.0.0.1:0", "--cluster-members", "127.0.0.1:5701,gw-2"));
        assertTrue(err.toString().contains("--cluster-members: expected HOST:PORT, got 'gw-2'"), err.toString());
    }

    @Test
    void anAdvertisedUrlMustBeAProbeUrl(@TempDir Path dir) {
        assertEquals(2, gateway(dir, "127.0.0.1:0", "--cluster-members", "127.0.0.1:5701",
                "--advertise-url", "http://gw-1:9464"));
        assertTrue(err.toString().contains("--advertise-url: expected ws://"), err.toString());
    }
}
