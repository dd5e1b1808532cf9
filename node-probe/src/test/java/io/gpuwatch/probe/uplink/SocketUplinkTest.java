package io.gpuwatch.probe.uplink;

import io.vertx.core.Vertx;

import java.util.SplittableRandom;

/** The same cases over SocketTransport, the lean NVML probe's uplink. */
class SocketUplinkTest extends UplinkTest {
    @Override
    Uplink uplink(Vertx vertx, UplinkConfig config) {
        return Uplink.overSockets(vertx, config, hello(), () -> NOW, new SplittableRandom(7));
    }
}
