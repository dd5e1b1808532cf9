package io.gpuwatch.probe.uplink;

import io.gpuwatch.protocol.CardReading;
import io.gpuwatch.protocol.Metric;
import io.gpuwatch.protocol.MetricValues;
import io.gpuwatch.protocol.ProcessInfo;
import io.gpuwatch.protocol.Sample;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * A probe's uplink through a long gateway outage, run by {@link UplinkOutageHeapTest} in a JVM with the
 * launcher's heap: 8-card samples sent as fast as the uplink numbers them, to a gateway that is not there, until
 * several times the heap has gone through the buffer. Prints the buffer's bound and its stats; exits 0 when the
 * buffer never held more than its bound.
 */
public final class OutageMain {
    public static void main(String[] args) throws Exception {
        int frames = Integer.parseInt(args[1]);
        UplinkConfig config = UplinkConfig.of(List.of(URI.create(args[0])), "token", null);
        UplinkCore up = UplinkCore.overSockets(config, UplinkTest.hello(), System::currentTimeMillis);
        up.start();
        long sentBytes = 0;
        for (int i = 1; i <= frames; i++) {
            List<CardReading> cards = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                MetricValues.Builder v = MetricValues.builder();
                for (int m = 0; m < Metric.count(); m++) {
                    v.set(Metric.of(m), 1_000_003.25 * (m + 1) + i + c);
                }
                cards.add(new CardReading("GPU-fake-%04d-4e2a-9c1d-7b3f05a1c%03d".formatted(c + 1, c + 1), v.build(),
                        List.of(new ProcessInfo(4242 + c, 60_129_542_144L, null, null, null), new ProcessInfo(9000 + c, 536_870_912L, null, null, null))));
            }
            up.send(new Sample(0, 1_764_700_000_000L + i * 1000L, cards));
            sentBytes += 7_000;
            if (i % 50 == 0) {
                long want = i;
                while (up.stats().lastSeq() < want) {
                    Thread.sleep(1);
                }
                UplinkStats s = up.stats();
                if (s.bufferedBytes() > config.maxBufferedBytes() + 16_384) {
                    System.out.println("over the bound: " + s);
                    System.exit(3);
                }
            }
        }
        UplinkStats s = up.stats();
        System.out.println("bound " + config.maxBufferedBytes() + " max heap " + Runtime.getRuntime().maxMemory()
                + " about " + sentBytes + " bytes sent; " + s);
        System.exit(s.droppedSamples() > 0 && s.bufferedBytes() <= config.maxBufferedBytes() ? 0 : 4);
    }
}
