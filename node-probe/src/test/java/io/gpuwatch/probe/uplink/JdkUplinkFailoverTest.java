package io.gpuwatch.probe.uplink;

import io.vertx.core.Vertx;

import java.util.SplittableRandom;

/** The same cases over the JDK's WebSocket client, the lean NVML probe's uplink. */
class JdkUplinkFailoverTest extends UplinkFailoverTest {
    @Override
    Uplink uplink(Vertx vertx, UplinkConfig config) {
        return Uplink.overJdk(vertx, config, hello(), () -> NOW, new SplittableRandom(7));
    }
}
