package io.gpuwatch.gateway;

/** A consistent snapshot of what the gateway holds and has done, taken on its event loop. */
public record GatewayStats(int nodes, int connectedNodes, int cards, long windowBytes, long frames, long samples,
                           long cardReadings, long events, long duplicates, long badFrames, long shedSamples,
                           long evaluations, long notificationsSent, long notificationsFailed, int firing, int ended) {
}
