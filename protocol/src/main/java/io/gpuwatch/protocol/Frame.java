package io.gpuwatch.protocol;

/** One protocol v1 frame: a JSON object in one WebSocket text frame. */
public sealed interface Frame permits Hello, Sample, Event, App, Sched, Welcome, Ack, ErrorFrame, ConfigFrame {
    /** The protocol version this module speaks. */
    int VERSION = 1;

    /** The value of the frame's {@code "type"} field. */
    String type();

    /** The producer's sequence number; 0 for frames outside the numbered stream (hello, gateway frames). */
    long seq();
}
