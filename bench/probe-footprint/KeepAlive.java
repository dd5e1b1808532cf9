import io.gpuwatch.probe.http.Fetched;
import io.gpuwatch.probe.http.HttpGet;
import io.gpuwatch.probe.net.Dialer;
import io.gpuwatch.probe.net.TlsTrust;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.util.Map;

/**
 * The probe's HTTP client's CPU per scrape of a metrics page, on a kept-alive connection against one connection
 * per fetch: the client thread's CPU time over N fetches from URL_KEEP (a server that keeps connections alive) and
 * URL_CLOSE (one that closes them), after a warm-up. Usage, with node-probe's classes built:
 *   mkdir -p /tmp/www && cp node-probe/src/test/resources/scrape/tgi-1.txt /tmp/www/metrics
 *   (cd /tmp/www && python3 $OLDPWD/bench/probe-footprint/metrics-server.py 18601 keep) &
 *   (cd /tmp/www && python3 $OLDPWD/bench/probe-footprint/metrics-server.py 18602 close) &
 *   java -cp node-probe/target/classes bench/probe-footprint/KeepAlive.java \
 *       http://127.0.0.1:18601/metrics http://127.0.0.1:18602/metrics [N=2000]
 */
public class KeepAlive {
    public static void main(String[] args) {
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 2000;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < 2; round++) {
            for (String url : new String[]{args[0], args[1]}) {
                try (HttpGet http = new HttpGet(new Dialer(TlsTrust.ANY), 5_000, 16 << 20)) {
                    long cpu = threads.getCurrentThreadCpuTime();
                    long wall = System.nanoTime();
                    int bytes = 0;
                    for (int i = 0; i < n; i++) {
                        Fetched<byte[]> f = http.get(URI.create(url), Map.of(), in -> in.readAllBytes());
                        if (!(f instanceof Fetched.Ok<byte[]> ok)) {
                            throw new IllegalStateException(url + ": " + f);
                        }
                        bytes = ok.value().length;
                    }
                    System.out.printf("%s %-40s %6d fetches of %d bytes: %6.1f µs CPU, %6.1f µs wall per fetch%n",
                            round == 0 ? "warm-up" : "measured", url, n, bytes,
                            (threads.getCurrentThreadCpuTime() - cpu) / 1e3 / n, (System.nanoTime() - wall) / 1e3 / n);
                }
            }
        }
    }
}
